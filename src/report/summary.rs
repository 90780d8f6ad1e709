//! `summary.md`: the paper's tables for a study, in Markdown.

use super::{Analysis, Kind, Method, COMPARED, RANKED};
use crate::data::stats::count;
use crate::metric::Metric;
use crate::stats::MeanCi;
use std::fmt::Write as _;

fn ci(m: &MeanCi) -> String {
    format!("{:.4} ± {:.4}", m.mean, m.ci95)
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn metric_label(m: Metric) -> &'static str {
    m.title()
}

fn percent(r: f64) -> String {
    let p = r * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{p}%")
    }
}

/// The Markdown summary; `plots` are the plot files written beside it.
pub(super) fn markdown(a: &Analysis, plots: &[&str]) -> String {
    let mut out = String::new();
    header(&mut out, a);
    table2(&mut out, a);
    table3(&mut out, a);
    table3_between(&mut out, a);
    table4(&mut out, a);
    top_of_schedule(&mut out, a);
    budget_sweep(&mut out, a);
    savings(&mut out, a);
    bandits(&mut out, a);
    newly_visited_and_files(&mut out, a, plots);
    out
}

/// The title, the description and the study's settings.
fn header(out: &mut String, a: &Analysis) {
    let s = &a.study;
    let _ = writeln!(out, "# Study `{}`\n", s.name);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description.trim());
    }
    let _ = writeln!(
        out,
        "- Dataset: {}: {} pages × {} cycles.",
        s.dataset_label(),
        a.dataset[0],
        a.dataset[1]
    );
    let _ = writeln!(
        out,
        "- Rotations (test folds): {:?}; test pages per rotation: {:?}; {} scored test cycles per rotation, {} in all.",
        s.rotations,
        a.test_pages,
        a.cycles_per_rotation,
        a.cycles_per_rotation * s.rotations.len()
    );
    let _ = write!(
        out,
        "- Simulation: resources {} (k = ⌊pages × resources⌋ visits per cycle), warm-up {} cycles, tie seed {}, ties {:?}",
        s.sim.resources(),
        s.sim.warmup(),
        s.sim.seed(),
        s.sim.ties()
    );
    match s.sim.host_cap() {
        Some(cap) => {
            let _ = writeln!(
                out,
                ", host cap {cap} (at most {cap} pages of one host visited per cycle; pages without a host are not capped)."
            );
        }
        None => out.push_str(".\n"),
    }
    let _ = writeln!(out, "- GP configurations:");
    for c in &s.configurations {
        let _ = writeln!(
            out,
            "  - `{}`: grammar `{}`, fitness {}, population {}, generations {}, tournament {}, seeds {:?}.",
            c.name,
            c.grammar,
            metric_label(c.fitness),
            c.gp.population,
            c.gp.generations,
            c.gp.tournament,
            c.seeds
        );
    }
    let _ = writeln!(
        out,
        "- A GP method is `configuration/strategy`: per rotation, the function the strategy chose in the seed with the highest strategy score (training + validation only)."
    );
}

/// What the report says about the weighted metrics: how they weigh pages, and whether
/// they differ from the unweighted ones in this study.
fn weighted_note(a: &Analysis) -> &'static str {
    if a.methods.iter().all(Method::weights_neutral) {
        "WFreshness and WNDCG weight each page by its importance (the dataset's `weight=`, SPEC §8); here they equal Freshness and NDCG in every cycle, as they do when the dataset has no page weights."
    } else {
        "WFreshness and WNDCG weight each page by its importance (the dataset's `weight=`, SPEC §8); without page weights they would equal Freshness and NDCG."
    }
}

/// Table 2: mean ± 95% CI of every method on every metric.
fn table2(out: &mut String, a: &Analysis) {
    let s = &a.study;
    let _ = writeln!(
        out,
        "\n## Table 2: mean ± 95% CI over all test cycles\n\nStudent t interval over the {} per-cycle values of all rotations. The fitness column is the metric a method was evolved with; its value is in **bold**. {}\n",
        a.cycles_per_rotation * s.rotations.len(),
        weighted_note(a)
    );
    let _ = write!(out, "| Method | Fitness |");
    for metric in Metric::ALL {
        let _ = write!(out, " {} |", metric_label(metric));
    }
    let _ = writeln!(out, "\n|---|---|{}", "---|".repeat(Metric::ALL.len()));
    for m in &a.methods {
        let _ = write!(
            out,
            "| {} | {} |",
            m.name,
            m.fitness.map_or("(baseline)", metric_label)
        );
        for metric in Metric::ALL {
            let v = ci(m.of(metric));
            if m.fitness == Some(metric) {
                let _ = write!(out, " **{v}** |");
            } else {
                let _ = write!(out, " {v} |");
            }
        }
        out.push('\n');
    }
}

/// Table 3: per-cycle wins / ties / losses of every GP method against each baseline.
fn table3(out: &mut String, a: &Analysis) {
    let s = &a.study;
    let baselines: Vec<&Method> = a
        .methods
        .iter()
        .filter(|m| m.kind == Kind::Baseline)
        .collect();
    if !baselines.is_empty() {
        let _ = writeln!(
            out,
            "\n## Table 3: per-cycle victories against each baseline\n\nEach cell is wins / ties / losses over the {} cycle positions: at each position, a paired t-test over the {} rotations at 95% (a win when the method's mean is higher and the test rejects equality).",
            a.cycles_per_rotation,
            s.rotations.len()
        );
        if s.rotations.len() < 2 {
            let _ = writeln!(
                out,
                "With a single rotation no test can reject equality: every cycle is a tie."
            );
        }
        for metric in COMPARED {
            let _ = writeln!(out, "\n### {}\n", metric_label(metric));
            let _ = write!(out, "| Method |");
            for b in &baselines {
                let _ = write!(out, " {} |", b.name);
            }
            let _ = write!(out, "\n|---|");
            for _ in &baselines {
                let _ = write!(out, "---|");
            }
            out.push('\n');
            for m in a.methods.iter().filter(|m| m.kind == Kind::Gp) {
                let _ = write!(out, "| {} |", m.name);
                for b in &baselines {
                    let found = a
                        .comparisons
                        .iter()
                        .find(|c| c.method == m.name && c.baseline == b.name && c.metric == metric);
                    match found {
                        Some(c) => {
                            let _ = write!(out, " {} / {} / {} |", c.wins, c.ties, c.losses);
                        }
                        None => out.push_str(" – |"),
                    }
                }
                out.push('\n');
            }
        }
    }
}

/// Table 3b: each GP method against the other configurations' methods of its strategy.
fn table3_between(out: &mut String, a: &Analysis) {
    if a.between_configurations.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Table 3b: per-cycle victories between configurations\n\nEach GP method against the method of the same selection strategy in each other configuration (does one grammar or fitness beat another?): wins / ties / losses over the {} cycle positions, paired t-test over the {} rotations at 95%.\n",
        a.cycles_per_rotation,
        a.study.rotations.len()
    );
    let _ = write!(out, "| Method | Against |");
    for metric in COMPARED {
        let _ = write!(out, " {} |", metric_label(metric));
    }
    let _ = write!(out, "\n|---|---|");
    for _ in COMPARED {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    for group in a.between_configurations.chunks(COMPARED.len()) {
        let _ = write!(
            out,
            "| {} | {} |",
            cell(&group[0].method),
            cell(&group[0].baseline)
        );
        for c in group {
            let _ = write!(out, " {} / {} / {} |", c.wins, c.ties, c.losses);
        }
        out.push('\n');
    }
}

/// Table 4: the chosen formula per configuration, rotation and strategy.
fn table4(out: &mut String, a: &Analysis) {
    let s = &a.study;
    let _ = writeln!(
        out,
        "\n## Table 4: chosen formulas\n\nPer configuration, rotation and strategy: the winning seed's choice, its training and validation fitness and its test value of the same metric."
    );
    for c in &s.configurations {
        let _ = writeln!(
            out,
            "\n### {} (fitness {}, grammar `{}`)\n",
            c.name,
            metric_label(c.fitness),
            c.grammar
        );
        let _ = writeln!(
            out,
            "| Rotation | Strategy | Seed | Train | Validation | Test | Formula |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        let mine: Vec<&Method> = a
            .methods
            .iter()
            // Bandits with an evolved arm repeat their strategy's choices.
            .filter(|m| m.configuration.as_deref() == Some(c.name.as_str()) && m.arms.is_empty())
            .collect();
        for (r, &rotation) in s.rotations.iter().enumerate() {
            for m in &mine {
                let ch = &m.chosen[r];
                let _ = writeln!(
                    out,
                    "| {rotation} | {} | {} | {:.4} | {:.4} | {:.4} | `{}` |",
                    m.strategy.map_or("", |s| s.name()),
                    ch.seed,
                    ch.train,
                    ch.validation,
                    ch.test,
                    cell(&ch.formula)
                );
            }
        }
    }
}

/// The top-of-schedule table (Fig. 5 in numbers).
fn top_of_schedule(out: &mut String, a: &Analysis) {
    let s = &a.study;
    if !s.top_resources.is_empty() {
        let _ = writeln!(
            out,
            "\n## Top of the schedule (Fig. 5)\n\nThe same functions (evolved at resources {}) when only the top fraction of the schedule is visited; mean over all test cycles. Bandits with an evolved arm are tested at the study's resources only (–).",
            s.sim.resources()
        );
        for metric in RANKED {
            let _ = writeln!(out, "\n### {}\n", metric_label(metric));
            let _ = write!(out, "| Method |");
            for &r in &s.top_resources {
                let _ = write!(out, " {} |", percent(r));
            }
            let _ = write!(out, "\n|---|");
            for _ in &s.top_resources {
                let _ = write!(out, "---|");
            }
            out.push('\n');
            for m in &a.methods {
                let _ = write!(out, "| {} |", m.name);
                for t in &m.top {
                    let _ = write!(out, " {:.4} |", t.metrics.of(metric).mean);
                }
                // Methods tested at the study's resources only (bandits with an
                // evolved arm), written "–" (the table's introduction says so).
                for _ in m.top.len()..s.top_resources.len() {
                    let _ = write!(out, " – |");
                }
                out.push('\n');
            }
        }
    }
}

/// The metrics of the budget tables: the study's metric, then Freshness and WFreshness
/// (the seed's Tables 5 and 6).
pub(super) fn sweep_metrics(a: &Analysis) -> Vec<Metric> {
    let mut metrics = vec![a.study.sim.metric()];
    for m in [Metric::Freshness, Metric::WFreshness] {
        if !metrics.contains(&m) {
            metrics.push(m);
        }
    }
    metrics
}

/// SPEC §11: every method at every budget, median and 2.5–97.5 percentile interval over
/// the runs, and the Wilcoxon p-value against the reference (studies with `runs` or
/// `savings`).
fn budget_sweep(out: &mut String, a: &Analysis) {
    let s = &a.study;
    if !s.evaluates() {
        return;
    }
    let seeds = s.run_seeds();
    let mut levels = s.levels();
    levels.sort_by(f64::total_cmp);
    let reference = s.reference.as_ref().map(|r| r.label());
    let _ = writeln!(
        out,
        "\n## Budgets (SPEC §11)\n\nEvery method at every budget (evolved at {}), decision `{}`, {} (run seeds {}): the median of the run means{}{}. Bandits with an evolved arm are tested at the study's budget in one run (–).",
        percent(s.sim.resources()),
        s.sim.decision(),
        count(seeds.len(), "run"),
        seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
        if seeds.len() > 1 { " [2.5th, 97.5th percentile]" } else { "" },
        match (&reference, seeds.len() > 1) {
            (Some(r), true) => format!(", and the two-sided Wilcoxon signed-rank p-value against `{r}` over the paired runs"),
            _ => String::new(),
        }
    );
    for metric in sweep_metrics(a) {
        let _ = writeln!(out, "\n### {}\n", metric_label(metric));
        let _ = write!(out, "| Method |");
        for &r in &levels {
            let _ = write!(out, " {} |", percent(r));
        }
        let _ = write!(out, "\n|---|");
        for _ in &levels {
            let _ = write!(out, "---|");
        }
        out.push('\n');
        for m in &a.methods {
            let _ = write!(out, "| {} |", m.name);
            for &r in &levels {
                let figure = m
                    .budgets
                    .iter()
                    .find(|b| b.resources == r)
                    .and_then(|b| b.of(metric));
                let text = match figure {
                    None => "–".to_string(),
                    Some(f)
                        if seeds.len() > 1
                            && m.evaluated.levels.first().is_some_and(|l| l.len() > 1) =>
                    {
                        let p = f.wilcoxon_p.map_or(String::new(), |p| format!(" p={p:.3}"));
                        format!("{:.4} [{:.4}, {:.4}]{p}", f.median, f.low, f.high)
                    }
                    Some(f) => format!("{:.4}", f.median),
                };
                let _ = write!(out, " {text} |");
            }
            out.push('\n');
        }
    }
}

/// SPEC §11: each method's savings at equal quality against each `savings` reference.
fn savings(out: &mut String, a: &Analysis) {
    let s = &a.study;
    if s.savings.is_empty() {
        return;
    }
    let metric = s.sim.metric();
    let _ = writeln!(
        out,
        "\n## Savings at equal {} (SPEC §11)\n\nThe smallest budget b' <= {} (on a grid of 1% of it) at which the method's mean {} reaches the reference's at {}, and the crawls saved, 1 - crawls(b')/crawls(b) (\"needs x% fewer crawls\"; – : it does not reach it).\n",
        metric.title(),
        percent(s.sim.resources()),
        metric.title(),
        percent(s.sim.resources())
    );
    let _ = write!(out, "| Method |");
    for r in &s.savings {
        let _ = write!(out, " against {} |", r.label());
    }
    let _ = write!(out, "\n|---|");
    for _ in &s.savings {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    for m in a.methods.iter().filter(|m| !m.savings.is_empty()) {
        let _ = write!(out, "| {} |", m.name);
        for r in &s.savings {
            let text = match m.savings.iter().find(|x| x.reference == r.label()) {
                Some(x) => match (x.savings.reaches_at, x.savings.savings) {
                    (Some(b), Some(saved)) => {
                        format!("{:.0}% fewer (b' = {:.3}%)", 100.0 * saved, 100.0 * b)
                    }
                    _ => "–".to_string(),
                },
                None => String::new(),
            };
            let _ = write!(out, " {text} |");
        }
        out.push('\n');
    }
}

/// For every bandit method (SPEC §10): the share of test cycles each arm was drawn and
/// each arm's probability in the last scored cycle; then the bandit against each of its
/// arms run alone, on the metric it was rewarded by.
fn bandits(out: &mut String, a: &Analysis) {
    let bandits: Vec<_> = a.methods.iter().filter(|m| !m.arms.is_empty()).collect();
    if bandits.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Bandits (SPEC §10)\n\nThe arms each bandit drew: the share of all test cycles (every rotation), and the arm's probability q in the last scored cycle (mean over rotations); `plots/arms-*.svg` draw q over the cycles. Then the bandit against each arm run alone, on the metric it was rewarded by (`results.json` has every metric): means over all test cycles, the two-sided paired t-test over the rotations' means (p: the rotations are independent page folds, the cycles of one rotation are not), and the cycle positions won, lost and tied (paired t-test over the rotations per position, p < 0.05). Arms the study does not run alone are not compared. Every rotation draws from the same stream (SPEC §10 seeds it by the run seed and the cycle), so these tests measure how the page folds vary, not how the draws do."
    );
    for m in bandits {
        let reward = m.reward.unwrap_or_default();
        let _ = writeln!(
            out,
            "\n### {} (rewarded by {})\n\n| Arm | Drawn | Last q |\n|---|---|---|",
            m.name,
            metric_label(reward)
        );
        for (j, (arm, share)) in m.arms.iter().zip(&m.arm_shares).enumerate() {
            let last: Vec<f64> = m
                .choices
                .iter()
                .filter_map(|r| r.last().and_then(|c| c.q.get(j).copied()))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {:.1}% | {:.3} |",
                cell(arm),
                100.0 * share,
                crate::stats::mean(&last)
            );
        }
        let against: Vec<_> = a
            .bandits_vs_arms
            .iter()
            .filter(|c| c.bandit == m.name && c.metric == reward)
            .collect();
        if against.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n| Arm alone | Bandit | Arm | Difference | p | W/L/T |\n|---|---|---|---|---|---|"
        );
        for c in against {
            let _ = writeln!(
                out,
                "| {} | {:.4} | {:.4} | {:+.4} | {:.3} | {}/{}/{} |",
                cell(&c.arm),
                c.bandit_mean,
                c.arm_mean,
                c.bandit_mean - c.arm_mean,
                c.p_rotations,
                c.per_cycle.wins,
                c.per_cycle.losses,
                c.per_cycle.ties
            );
        }
    }
}

/// The newly visited pages and the list of files (`plots` among them).
fn newly_visited_and_files(out: &mut String, a: &Analysis, plots: &[&str]) {
    let s = &a.study;
    let _ = writeln!(
        out,
        "\n## Newly visited pages\n\nMean fraction of each cycle's visits that go to pages not visited since the warm-up.\n\n| Method | Newly visited |\n|---|---|"
    );
    for m in &a.methods {
        let _ = writeln!(out, "| {} | {} |", m.name, ci(&m.newly_visited));
    }

    let _ = writeln!(
        out,
        "\n## Files\n\n- `results.json`: every figure above, machine-readable."
    );
    if s.reports.csv {
        let _ = writeln!(
            out,
            "- `cycles.csv`: every per-cycle value; `generations.csv`: fitness per generation of every run."
        );
        if a.methods.iter().any(|m| !m.arms.is_empty()) {
            let _ = writeln!(
                out,
                "- `arms.csv`: every bandit's arm, reward and arm probabilities per test cycle."
            );
        }
    }
    for p in plots {
        let _ = writeln!(out, "- [`{p}`]({p})");
    }
}
