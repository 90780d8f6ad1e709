//! The summary of a study: the paper's tables and the study's further sections as a
//! [`doc`] document, written as `summary.md` (Markdown) and in `report.html`.

use super::doc::{self, percent, Block, Inline, Item};
use super::{Analysis, Chosen, Comparison, Kind, Method, COMPARED, RANKED};
use crate::data::stats::count;
use crate::experiment::study::Study;
use crate::metric::Metric;
use crate::stats::MeanCi;

fn ci(m: &MeanCi) -> String {
    format!("{:.4} ± {:.4}", m.mean, m.ci95)
}

fn metric_label(m: Metric) -> &'static str {
    m.title()
}

/// The summary in three parts: the title and settings, the tables, the list of files.
pub(super) struct Summary {
    /// The title, the description and the study's settings.
    pub(super) header: Vec<Block>,
    /// Every table with its heading and introduction.
    pub(super) tables: Vec<Block>,
    /// The files written beside the summary.
    pub(super) files: Vec<Block>,
}

impl Summary {
    /// The summary of `a`; `plots` are the plot files written beside it.
    pub(super) fn new(a: &Analysis, plots: &[&str]) -> Summary {
        let mut tables = Vec::new();
        table2(&mut tables, a);
        table3(&mut tables, a);
        table3_between(&mut tables, a);
        table4(&mut tables, a);
        top_of_schedule(&mut tables, a);
        budget_sweep(&mut tables, a);
        super::rivals::section(&mut tables, a);
        super::headroom::section(&mut tables, a);
        savings(&mut tables, a);
        bandits(&mut tables, a);
        newly_visited(&mut tables, a);
        Summary {
            header: header(a),
            tables,
            files: files(a, plots),
        }
    }

    /// `summary.md`.
    pub(super) fn markdown(&self) -> String {
        let blocks: Vec<Block> = [&self.header, &self.tables, &self.files]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        doc::markdown(&blocks)
    }
}

/// A heading and a one-line paragraph.
fn section(out: &mut Vec<Block>, level: u8, title: Inline, intro: Inline) {
    out.push(Block::heading(level, title));
    out.push(Block::paragraph(intro));
}

/// Plain-text cells.
fn texts<S: Into<String>>(cells: impl IntoIterator<Item = S>) -> Vec<Inline> {
    cells.into_iter().map(Inline::text).collect()
}

/// The title, the description and the study's settings.
fn header(a: &Analysis) -> Vec<Block> {
    let s = &a.study;
    let mut out = vec![Block::heading(
        1,
        Inline::text("Study ").and_code(s.name.clone()),
    )];
    if !s.description.is_empty() {
        out.push(Block::paragraph(Inline::text(s.description.trim())));
    }
    let item = |text: Inline| Item {
        text,
        children: Vec::new(),
    };
    let mut simulation = format!(
        "Simulation: resources {} (k = ⌊pages × resources⌋ visits per cycle), warm-up {} cycles, tie seed {}, ties {:?}",
        s.sim.resources(),
        s.sim.warmup(),
        s.sim.seed(),
        s.sim.ties()
    );
    match s.sim.host_cap() {
        Some(cap) => simulation += &format!(
            ", host cap {cap} (at most {cap} pages of one host visited per cycle; pages without a host are not capped)."
        ),
        None => simulation.push('.'),
    }
    let configurations = s
        .configurations
        .iter()
        .map(|c| {
            Inline::code(c.name.clone())
                .and_text(": grammar ")
                .and_code(c.grammar.clone())
                .and_text(format!(
                    ", fitness {}, population {}, generations {}, tournament {}, seeds {:?}.",
                    metric_label(c.fitness),
                    c.gp.population,
                    c.gp.generations,
                    c.gp.tournament,
                    c.seeds
                ))
        })
        .collect();
    out.push(Block::List(vec![
        item(
            Inline::text("Dataset: ")
                .and_prose(&s.dataset_label())
                .and_text(format!(": {} pages × {} cycles.", a.dataset[0], a.dataset[1])),
        ),
        item(Inline::text(format!(
            "Rotations (test folds): {:?}; test pages per rotation: {:?}; {} scored test cycles per rotation, {} in all.",
            s.rotations,
            a.test_pages,
            a.cycles_per_rotation,
            a.cycles_per_rotation * s.rotations.len()
        ))),
        item(Inline::text(simulation)),
        Item {
            text: Inline::text("GP configurations:"),
            children: configurations,
        },
        item(Inline::prose(
            "A GP method is `configuration/strategy`: per rotation, the function the strategy chose in the seed with the highest strategy score (training + validation only).",
        )),
    ]));
    out
}

/// What the report says about the weighted metrics: how they weigh pages, and whether
/// they differ from the unweighted ones in this study.
fn weighted_note(a: &Analysis) -> &'static str {
    if a.methods.iter().all(Method::weights_neutral) {
        "WFreshness and WNDCG weight each page by its importance (the dataset's `weight=`); here they equal Freshness and NDCG in every cycle, as they do when the dataset has no page weights."
    } else {
        "WFreshness and WNDCG weight each page by its importance (the dataset's `weight=`); without page weights they would equal Freshness and NDCG."
    }
}

/// Table 2: mean ± 95% CI of every method on every metric.
fn table2(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    section(
        out,
        2,
        Inline::text("Table 2: mean ± 95% CI over all test cycles"),
        Inline::text(format!(
            "Student t interval over the {} per-cycle values of all rotations. The fitness column is the metric a method was evolved with; its value is in ",
            a.cycles_per_rotation * s.rotations.len(),
        ))
        .and_strong("bold")
        .and_prose(&format!(". {}", weighted_note(a))),
    );
    let mut head = texts(["Method", "Fitness"]);
    head.extend(texts(Metric::ALL.map(metric_label)));
    let rows = a
        .methods
        .iter()
        .map(|m| {
            let mut row = vec![
                Inline::text(m.name.clone()),
                Inline::text(m.fitness.map_or("(baseline)", metric_label)),
            ];
            row.extend(Metric::ALL.map(|metric| {
                let v = ci(m.of(metric));
                if m.fitness == Some(metric) {
                    Inline::strong(v)
                } else {
                    Inline::text(v)
                }
            }));
            row
        })
        .collect();
    out.push(Block::Table { head, rows });
}

/// Table 3: per-cycle wins / ties / losses of every GP method against each baseline.
fn table3(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    let baselines: Vec<&Method> = a
        .methods
        .iter()
        .filter(|m| m.kind == Kind::Baseline)
        .collect();
    if baselines.is_empty() {
        return;
    }
    out.push(Block::heading(
        2,
        Inline::text("Table 3: per-cycle victories against each baseline"),
    ));
    let mut intro = vec![Inline::text(format!(
        "Each cell is wins / ties / losses over the {} cycle positions: at each position, a paired t-test over the {} rotations at 95% (a win when the method's mean is higher and the test rejects equality).",
        a.cycles_per_rotation,
        s.rotations.len()
    ))];
    if s.rotations.len() < 2 {
        intro.push(Inline::text(
            "With a single rotation no test can reject equality: every cycle is a tie.",
        ));
    }
    out.push(Block::Paragraph(intro));
    for metric in COMPARED {
        out.push(Block::heading(3, Inline::text(metric_label(metric))));
        let mut head = texts(["Method"]);
        head.extend(baselines.iter().map(|b| Inline::text(b.name.clone())));
        let rows =
            a.methods
                .iter()
                .filter(|m| m.kind == Kind::Gp)
                .map(|m| {
                    let mut row = vec![Inline::text(m.name.clone())];
                    row.extend(baselines.iter().map(|b| {
                        let found = a.comparisons.iter().find(|c| {
                            c.method == m.name && c.baseline == b.name && c.metric == metric
                        });
                        Inline::text(found.map_or("–".to_string(), wins_ties_losses))
                    }));
                    row
                })
                .collect();
        out.push(Block::Table { head, rows });
    }
}

/// `wins / ties / losses`.
fn wins_ties_losses(c: &Comparison) -> String {
    format!("{} / {} / {}", c.wins, c.ties, c.losses)
}

/// Table 3b: each GP method against the other configurations' methods of its strategy.
fn table3_between(out: &mut Vec<Block>, a: &Analysis) {
    if a.between_configurations.is_empty() {
        return;
    }
    section(
        out,
        2,
        Inline::text("Table 3b: per-cycle victories between configurations"),
        Inline::text(format!(
            "Each GP method against the method of the same selection strategy in each other configuration (does one grammar or fitness beat another?): wins / ties / losses over the {} cycle positions, paired t-test over the {} rotations at 95%.",
            a.cycles_per_rotation,
            a.study.rotations.len()
        )),
    );
    let mut head = texts(["Method", "Against"]);
    head.extend(texts(COMPARED.map(metric_label)));
    let rows = a
        .between_configurations
        .chunks(COMPARED.len())
        .map(|group| {
            let mut row = texts([group[0].method.clone(), group[0].baseline.clone()]);
            row.extend(group.iter().map(|c| Inline::text(wins_ties_losses(c))));
            row
        })
        .collect();
    out.push(Block::Table { head, rows });
}

/// Table 4: the chosen formula per configuration, rotation and strategy.
fn table4(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    section(
        out,
        2,
        Inline::text("Table 4: chosen formulas"),
        Inline::text(if s.train_resources.is_empty() {
            "Per configuration, rotation and strategy: the winning seed's choice, its training and validation fitness and its test value of the same metric.".to_string()
        } else {
            format!("Per configuration, rotation and strategy: the winning seed's choice, its training and validation fitness (the mean over the training budgets of the fitness relative to the fittest seed formula's: 1 is as good as it) and its test value of the same metric at {}.", percent(s.sim.resources()))
        }),
    );
    for c in &s.configurations {
        out.push(Block::heading(
            3,
            Inline::text(format!(
                "{} (fitness {}, grammar ",
                c.name,
                metric_label(c.fitness)
            ))
            .and_code(c.grammar.clone())
            .and_text(match c.train_sample {
                Some(share) => format!(
                    ", searched on {} of the training pages)",
                    percent(share.share())
                ),
                None => ")".to_string(),
            }),
        ));
        let head = texts([
            "Rotation",
            "Strategy",
            "Seed",
            "Train",
            "Validation",
            "Test",
            "Formula",
        ]);
        let mine: Vec<&Method> = a
            .methods
            .iter()
            // Bandits with an evolved arm repeat their strategy's choices.
            .filter(|m| m.configuration.as_deref() == Some(c.name.as_str()) && m.arms.is_empty())
            .collect();
        let mut rows = Vec::new();
        for (r, &rotation) in s.rotations.iter().enumerate() {
            for m in &mine {
                let ch = &m.chosen[r];
                let mut row = texts([
                    rotation.to_string(),
                    m.strategy.map_or("", |s| s.name()).to_string(),
                    ch.seed.to_string(),
                    format!("{:.4}", ch.train),
                    format!("{:.4}", ch.validation),
                    format!("{:.4}", ch.test),
                ]);
                row.push(Inline::code(ch.formula.clone()));
                rows.push(row);
            }
        }
        out.push(Block::Table { head, rows });
        seeds_and_fronts(out, &mine);
    }
}

/// Under Table 4: per rotation, how far the search moved past its fittest seed formula, and
/// the front of size against validation fitness it chose from (each strategy's winning seed
/// once).
fn seeds_and_fronts(out: &mut Vec<Block>, mine: &[&Method]) {
    let Some(first) = mine.first() else {
        return;
    };
    let mut items = Vec::new();
    for r in 0..first.chosen.len() {
        let mut seeds: Vec<&Chosen> = mine.iter().map(|m| &m.chosen[r]).collect();
        seeds.dedup_by_key(|c| c.seed);
        for ch in seeds {
            if ch.front.is_empty() {
                continue;
            }
            let front: Vec<String> = ch
                .front
                .iter()
                .map(|p| format!("{} nodes {:.4}", p.size, p.validation))
                .collect();
            let mut line = Inline::text(format!(
                "Rotation {}, seed {}: front (size, validation) {}",
                ch.rotation,
                ch.seed,
                front.join("; ")
            ));
            if let Some(start) = &ch.best_seed {
                line = line
                    .and_text(format!(
                        "; the fittest seed formula, train {:.4}, validation {:.4}: ",
                        start.train, start.validation
                    ))
                    .and_code(start.formula.to_string());
            }
            items.push(Item {
                text: line,
                children: Vec::new(),
            });
        }
    }
    if !items.is_empty() {
        out.push(Block::List(items));
    }
}

/// A table with one row per method of `methods` (its name, then `cells`), with the
/// `Method` column and then `columns`.
fn method_table<'a>(
    methods: impl IntoIterator<Item = &'a Method>,
    columns: Vec<Inline>,
    cells: impl Fn(&Method) -> Vec<Inline>,
) -> Block {
    let mut head = texts(["Method"]);
    head.extend(columns);
    let rows = methods
        .into_iter()
        .map(|m| {
            let mut row = vec![Inline::text(m.name.clone())];
            row.extend(cells(m));
            row
        })
        .collect();
    Block::Table { head, rows }
}

/// The top-of-schedule table (Fig. 5 in numbers).
/// Where the study's formulas were evolved: "evolved at 5%", or over its training budgets.
fn trained_at(s: &Study) -> String {
    if s.train_resources.is_empty() {
        return format!("evolved at {}", percent(s.sim.resources()));
    }
    let budgets: Vec<String> = s.train_resources.iter().map(|&r| percent(r)).collect();
    format!(
        "evolved over the training budgets {}, each relative to the fittest seed formula",
        budgets.join(", ")
    )
}

fn top_of_schedule(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    if s.top_resources.is_empty() {
        return;
    }
    section(
        out,
        2,
        Inline::text("Top of the schedule (Fig. 5)"),
        Inline::text(format!(
            "The same functions ({}) when only the top fraction of the schedule is visited; mean over all test cycles. Bandits with an evolved arm are tested at the study's resources only (–).",
            trained_at(s)
        )),
    );
    for metric in RANKED {
        out.push(Block::heading(3, Inline::text(metric_label(metric))));
        let columns = texts(s.top_resources.iter().map(|&r| percent(r)));
        out.push(method_table(&a.methods, columns, |m| {
            let mut cells = texts(
                m.top
                    .iter()
                    .map(|t| format!("{:.4}", t.metrics.of(metric).mean)),
            );
            // Methods tested at the study's resources only (bandits with an evolved
            // arm), written "–" (the table's introduction says so).
            cells.resize(s.top_resources.len(), Inline::text("–"));
            cells
        }));
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

/// Every method at every budget, median and 2.5–97.5 percentile interval over the runs,
/// and the Wilcoxon p-value against the reference (studies with `runs` or `savings`;
/// docs/src/reference/evaluation.md).
fn budget_sweep(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    if !s.evaluates() {
        return;
    }
    let seeds = s.run_seeds();
    let all = s.levels();
    let levels: Vec<f64> = s.budget_order().into_iter().map(|i| all[i]).collect();
    let mut intro = Inline::text(format!(
        "Every method at every budget ({}), decision ",
        trained_at(s)
    ))
    .and_code(s.sim.decision().to_string())
    .and_text(format!(
        ", {} (run seeds {}): the median of the run means{}",
        count(seeds.len(), "run"),
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        if seeds.len() > 1 {
            " [2.5th, 97.5th percentile]"
        } else {
            ""
        },
    ));
    if let (Some(r), true) = (&s.reference, seeds.len() > 1) {
        intro = intro
            .and_text(", and the two-sided Wilcoxon signed-rank p-value against ")
            .and_code(r.label())
            .and_text(" over the paired runs");
    }
    intro = intro
        .and_text(". Bandits with an evolved arm are tested at the study's budget in one run (–).");
    section(out, 2, Inline::text("Budgets"), intro);
    for metric in sweep_metrics(a) {
        out.push(Block::heading(3, Inline::text(metric_label(metric))));
        let columns = texts(levels.iter().map(|&r| percent(r)));
        out.push(method_table(&a.methods, columns, |m| {
            let text = |r: f64| {
                let figure = m
                    .budgets
                    .iter()
                    .find(|b| b.resources == r)
                    .and_then(|b| b.of(metric));
                match figure {
                    None => "–".to_string(),
                    Some(f)
                        if seeds.len() > 1
                            && m.evaluated.levels.first().is_some_and(|l| l.len() > 1) =>
                    {
                        let p = f.wilcoxon_p.map_or(String::new(), |p| format!(" p={p:.3}"));
                        format!("{:.4} [{:.4}, {:.4}]{p}", f.median, f.low, f.high)
                    }
                    Some(f) => format!("{:.4}", f.median),
                }
            };
            texts(levels.iter().map(|&r| text(r)))
        }));
    }
}

/// Each method's savings at equal quality against each `savings` reference
/// (docs/src/reference/evaluation.md#savings-at-equal-quality).
fn savings(out: &mut Vec<Block>, a: &Analysis) {
    let s = &a.study;
    if s.savings.is_empty() {
        return;
    }
    let metric = s.sim.metric();
    section(
        out,
        2,
        Inline::text(format!("Savings at equal {}", metric.title())),
        Inline::text(format!(
            "The smallest budget b' <= {} (on a grid of 1% of it) at which the method's mean {} reaches the reference's at {}, and the crawls saved, 1 - crawls(b')/crawls(b) (\"needs x% fewer crawls\"; – : it does not reach it).",
            percent(s.sim.resources()),
            metric.title(),
            percent(s.sim.resources())
        )),
    );
    let columns = texts(s.savings.iter().map(|r| format!("against {}", r.label())));
    let methods = a.methods.iter().filter(|m| !m.savings.is_empty());
    out.push(method_table(methods, columns, |m| {
        let text =
            |r: &crate::policy::Policy| match m.savings.iter().find(|x| x.reference == r.label()) {
                Some(x) => match (x.savings.reaches_at, x.savings.savings) {
                    (Some(b), Some(saved)) => {
                        format!("{:.0}% fewer (b' = {:.3}%)", 100.0 * saved, 100.0 * b)
                    }
                    _ => "–".to_string(),
                },
                None => String::new(),
            };
        texts(s.savings.iter().map(text))
    }));
}

/// For every bandit method (docs/src/reference/bandit.md): the share of test cycles each
/// arm was drawn and each arm's probability in the last scored cycle; then the bandit
/// against each of its arms run alone, on the metric it was rewarded by.
fn bandits(out: &mut Vec<Block>, a: &Analysis) {
    let bandits: Vec<_> = a.methods.iter().filter(|m| !m.arms.is_empty()).collect();
    if bandits.is_empty() {
        return;
    }
    section(
        out,
        2,
        Inline::text("Bandits"),
        Inline::prose("The arms each bandit drew: the share of all test cycles (every rotation), and the arm's probability q in the last scored cycle (mean over rotations); `plots/arms-*.svg` draw q over the cycles. Then the bandit against each arm run alone, on the metric it was rewarded by (`results.json` has every metric): means over all test cycles, the two-sided paired t-test over the rotations' means (p: the rotations are independent page folds, the cycles of one rotation are not), and the cycle positions won, lost and tied (paired t-test over the rotations per position, p < 0.05). Arms the study does not run alone are not compared. Every rotation draws from the same stream (the bandit seeds it by the run seed and the cycle), so these tests measure how the page folds vary, not how the draws do."),
    );
    for m in bandits {
        let reward = m.reward.unwrap_or_default();
        out.push(Block::heading(
            3,
            Inline::text(match &m.rewarded_by {
                Some(by) => format!(
                    "{} (rewarded by {by}; compared on {})",
                    m.name,
                    metric_label(reward)
                ),
                None => format!("{} (rewarded by {})", m.name, metric_label(reward)),
            }),
        ));
        let rows = m
            .arms
            .iter()
            .zip(&m.arm_shares)
            .enumerate()
            .map(|(j, (arm, share))| {
                let last: Vec<f64> = m
                    .choices
                    .iter()
                    .filter_map(|r| r.last().and_then(|c| c.q.get(j).copied()))
                    .collect();
                texts([
                    arm.clone(),
                    format!("{:.1}%", 100.0 * share),
                    format!("{:.3}", crate::stats::mean(&last)),
                ])
            })
            .collect();
        out.push(Block::Table {
            head: texts(["Arm", "Drawn", "Last q"]),
            rows,
        });
        let against: Vec<Vec<Inline>> = a
            .bandits_vs_arms
            .iter()
            .filter(|c| c.bandit == m.name && c.metric == reward)
            .map(|c| {
                texts([
                    c.arm.clone(),
                    format!("{:.4}", c.bandit_mean),
                    format!("{:.4}", c.arm_mean),
                    format!("{:+.4}", c.bandit_mean - c.arm_mean),
                    format!("{:.3}", c.p_rotations),
                    format!(
                        "{}/{}/{}",
                        c.per_cycle.wins, c.per_cycle.losses, c.per_cycle.ties
                    ),
                ])
            })
            .collect();
        if !against.is_empty() {
            out.push(Block::Table {
                head: texts(["Arm alone", "Bandit", "Arm", "Difference", "p", "W/L/T"]),
                rows: against,
            });
        }
    }
}

/// The newly visited pages.
fn newly_visited(out: &mut Vec<Block>, a: &Analysis) {
    section(
        out,
        2,
        Inline::text("Newly visited pages"),
        Inline::text(
            "Mean fraction of each cycle's visits that go to pages not visited since the warm-up.",
        ),
    );
    out.push(method_table(&a.methods, texts(["Newly visited"]), |m| {
        texts([ci(&m.newly_visited)])
    }));
}

/// The list of files (`plots` among them).
fn files(a: &Analysis, plots: &[&str]) -> Vec<Block> {
    let s = &a.study;
    let mut items = vec![Inline::prose(
        "`results.json`: every figure above, machine-readable.",
    )];
    if s.reports.csv {
        items.push(Inline::prose(
            "`cycles.csv`: every per-cycle value; `generations.csv`: fitness per generation of every run.",
        ));
        if a.methods.iter().any(|m| !m.arms.is_empty()) {
            items.push(Inline::prose(
                "`arms.csv`: every bandit's arm, reward and arm probabilities per test cycle.",
            ));
        }
    }
    items.extend(plots.iter().map(|p| Inline::default().and_file(*p)));
    vec![
        Block::heading(2, Inline::text("Files")),
        Block::List(
            items
                .into_iter()
                .map(|text| Item {
                    text,
                    children: Vec::new(),
                })
                .collect(),
        ),
    ]
}
