//! The report's SVG plots, drawn with `plotters` (SVG backend only, no fonts needed: text
//! is left to the SVG viewer).
//!
//! * `plots/cycles-changerate.svg`, `plots/cycles-ndcg.svg`, `plots/cycles-wndcg.svg`
//!   (paper Fig. 4, and WNDCG, docs/src/reference/metrics.md#wndcg): each method's metric
//!   per test cycle position, mean over the rotations;
//! * `plots/top-changerate.svg`, `plots/top-ndcg.svg`, `plots/top-wndcg.svg` (Fig. 5): each
//!   method's metric when only the top 1%..5% (the study's `top_resources`) of the
//!   schedule is visited;
//! * `plots/newly-visited.svg` (Fig. 6): fraction of each cycle's visits that go to pages
//!   not visited since the warm-up;
//! * `plots/fitness-<configuration>.svg`: best and mean training fitness per generation,
//!   mean over the configuration's rotation × seed runs;
//! * `plots/arms-<method>.svg`, for each bandit (docs/src/reference/bandit.md; the seed's
//!   Fig. 5): each arm's probability per test cycle position, mean over the rotations.
//!
//! * `plots/budgets-<metric>.svg` (studies with `runs` or `savings`;
//!   docs/src/reference/evaluation.md#budget-sweeps): each method's median metric against
//!   the budget, on a log axis.
//!
//! Every series has its own colour and marker (12 colours × 5 markers, so no two of up to
//! 60 series look alike), GP methods are drawn with thick lines, baselines with thin
//! ones; the legend lists every series; axes are zoomed to the data. Plots of methods
//! show one selection strategy per configuration (the first of `reports.strategies`)
//! unless `reports.all_strategies` is set. Titles name the dataset and the budget.

use super::{Analysis, Kind, Method, RANKED};
use crate::data::stats::count;
use crate::metric::CycleMetrics;
use crate::stats::mean;
use plotters::prelude::*;

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Drawn thin (baselines).
    pub thin: bool,
}

const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(174, 199, 232),
];

/// The marker of series `i`: with the colour `PALETTE[i % 12]`, distinct for i < 60.
fn marker(i: usize) -> usize {
    (i / PALETTE.len() + i) % 5
}

/// Draws marker `kind` at `at` in `color` (circle, triangle, square, cross, diamond).
fn marker_element<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    kind: usize,
    (x, y): (i32, i32),
    color: RGBColor,
) {
    let style = color.filled();
    let _ = match kind {
        0 => area.draw(&Circle::new((x, y), 4, style)),
        1 => area.draw(&TriangleMarker::new((x, y), 5, style)),
        2 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style)),
        3 => area.draw(&Cross::new((x, y), 4, color.stroke_width(2))),
        _ => area.draw(&Polygon::new(
            vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
            style,
        )),
    };
}

/// A line chart as SVG text, legend on the right.
pub fn line_chart(title: &str, x_desc: &str, y_desc: &str, series: &[Series]) -> String {
    chart(title, x_desc, y_desc, series, false)
}

/// A line chart with a logarithmic x axis (budgets), as SVG text.
pub fn log_chart(title: &str, x_desc: &str, y_desc: &str, series: &[Series]) -> String {
    chart(title, x_desc, y_desc, series, true)
}

/// Width of the plotting area, in pixels; the legend's width is added to it.
const PLOT_WIDTH: u32 = 720;

fn chart(title: &str, x_desc: &str, y_desc: &str, series: &[Series], log_x: bool) -> String {
    let mut svg = String::new();
    let (xs, ys): (Vec<f64>, Vec<f64>) =
        series.iter().flat_map(|s| s.points.iter()).copied().unzip();
    let range = |v: &[f64], pad: f64| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() || !hi.is_finite() {
            return (0.0, 1.0);
        }
        let span = (hi - lo).max(1e-6);
        (lo - span * pad, hi + span * pad)
    };
    let (x0, x1) = range(&xs, 0.0);
    let (y0, y1) = range(&ys, 0.05);
    let legend_width = legend_width(series);
    let height = 480.max(60 + 18 * series.len() as u32);
    {
        let root = SVGBackend::with_string(&mut svg, (PLOT_WIDTH + legend_width, height))
            .into_drawing_area();
        // Drawing into a String cannot fail; errors are ignored.
        let _ = root.fill(&WHITE);
        let (left, right) = root.split_horizontally(PLOT_WIDTH);
        let mut builder = ChartBuilder::on(&left);
        builder
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60);
        if log_x {
            // Budgets: the axis labels the budgets plotted (at most a dozen of them).
            let (x0, x1) = (x0.max(1e-9), x1.max(x0.max(1e-9) * 1.01));
            let mut ticks: Vec<f64> = xs.iter().copied().filter(|&x| x > 0.0).collect();
            ticks.sort_by(f64::total_cmp);
            ticks.dedup();
            let step = ticks.len().div_ceil(12).max(1);
            let ticks: Vec<f64> = ticks.into_iter().step_by(step).collect();
            let x_axis = (x0 * 0.85..x1 * 1.15).log_scale().with_key_points(ticks);
            if let Ok(mut chart) = builder.build_cartesian_2d(x_axis, y0..y1) {
                let _ = chart
                    .configure_mesh()
                    .x_desc(x_desc)
                    .y_desc(y_desc)
                    .max_light_lines(1)
                    .x_label_formatter(&|x: &f64| format!("{}", (x * 1e4).round() / 1e4))
                    .draw();
                lines(&mut chart, series);
            }
        } else if let Ok(mut chart) = builder.build_cartesian_2d(x0..x1, y0..y1) {
            // Whole-number x values (cycles, generations, percentages) print without a
            // decimal part.
            let x_label = |x: &f64| {
                if x.fract() == 0.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x}")
                }
            };
            let _ = chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .max_light_lines(1)
                .x_label_formatter(&x_label)
                .draw();
            lines(&mut chart, series);
        }
        legend(&right, series);
        let _ = root.present();
    }
    svg
}

/// The legend's width: room for the longest label (13 px sans-serif, about 7.5 px a
/// character at most for the names we draw) after the line and marker.
fn legend_width(series: &[Series]) -> u32 {
    let longest = series
        .iter()
        .map(|s| s.label.chars().count())
        .max()
        .unwrap_or(0);
    (60 + (longest as f64 * 7.5).ceil() as u32).max(160)
}

/// Every series as a line with its markers, on a linear or logarithmic x axis.
fn lines<DB, X, Y>(chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>, series: &[Series])
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = color.stroke_width(if s.thin { 1 } else { 2 });
        let _ = chart.draw_series(LineSeries::new(s.points.iter().copied(), style));
        let area = chart.plotting_area().strip_coord_spec();
        let (dx, dy) = area.get_base_pixel();
        for &p in &s.points {
            let at = chart.backend_coord(&p);
            marker_element(&area, marker(i), (at.0 - dx, at.1 - dy), color);
        }
    }
}

/// The legend: every series' line, marker and label.
fn legend<DB: DrawingBackend>(right: &DrawingArea<DB, plotters::coord::Shift>, series: &[Series]) {
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let y = 40 + 18 * i as i32;
        let _ = right.draw(&PathElement::new(
            vec![(8, y), (36, y)],
            color.stroke_width(if s.thin { 1 } else { 3 }),
        ));
        marker_element(right, marker(i), (22, y), color);
        let _ = right.draw(&Text::new(
            s.label.clone(),
            (44, y - 7),
            ("sans-serif", 13).into_font(),
        ));
    }
}

fn per_position(m: &Method, f: impl Fn(&CycleMetrics) -> f64) -> Vec<(f64, f64)> {
    let positions = m.cycles.iter().map(Vec::len).min().unwrap_or(0);
    (0..positions)
        .map(|j| {
            let values: Vec<f64> = m.cycles.iter().map(|r| f(&r[j])).collect();
            ((j + 1) as f64, mean(&values))
        })
        .collect()
}

/// `name` with every character but letters, digits, `.`, `_` and `-` as `-`, at most 60
/// of them (a method name as a file name).
fn file_name(name: &str) -> String {
    name.chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

fn thin(m: &Method) -> bool {
    m.kind == Kind::Baseline
}

/// Whether `m` is drawn: baselines always; GP methods of the first reported strategy
/// unless the study asks for all (`reports.all_strategies`).
fn drawn(a: &Analysis, m: &Method) -> bool {
    a.study.reports.all_strategies
        || m.strategy.is_none()
        || m.strategy == a.study.reports.strategies.first().copied()
}

/// The dataset's name (a file's name, or the preset's), for titles.
fn dataset(a: &Analysis) -> String {
    match &a.study.dataset {
        crate::experiment::study::DatasetSpec::Path(p) => {
            p.rsplit('/').next().unwrap_or(p).to_string()
        }
        crate::experiment::study::DatasetSpec::Synthetic { preset, .. } => preset.clone(),
    }
}

/// The dataset and the study's budget, for titles.
fn setting(a: &Analysis) -> String {
    format!(
        "{}, budget {}%",
        dataset(a),
        a.study.sim.resources() * 100.0
    )
}

/// One series per drawn method (baselines thin), with the points `points` gives.
fn series_of(a: &Analysis, points: impl Fn(&Method) -> Vec<(f64, f64)>) -> Vec<Series> {
    a.methods
        .iter()
        .filter(|m| drawn(a, m))
        .map(|m| Series {
            label: m.name.clone(),
            points: points(m),
            thin: thin(m),
        })
        .collect()
}

/// Every plot of the report: (path relative to the output directory, SVG text).
pub fn all(a: &Analysis) -> Vec<(String, String)> {
    let mut plots = Vec::new();
    for metric in RANKED {
        let (label, file) = (metric.title(), metric.name());
        let series = series_of(a, |m| per_position(m, |c| metric.of(c)));
        plots.push((
            format!("plots/cycles-{file}.svg"),
            line_chart(
                &format!(
                    "{}: {label} per test cycle (mean over rotations)",
                    setting(a)
                ),
                "scored test cycle",
                label,
                &series,
            ),
        ));
    }
    if !a.study.top_resources.is_empty() {
        for metric in RANKED {
            let (label, file) = (metric.title(), metric.name());
            let series = series_of(a, |m| {
                m.top
                    .iter()
                    .map(|t| (t.resources * 100.0, t.metrics.of(metric).mean))
                    .collect()
            });
            plots.push((
                format!("plots/top-{file}.svg"),
                log_chart(
                    &format!(
                        "{}: {label} at the top of the schedule (trained at {}%)",
                        dataset(a),
                        a.study.sim.resources() * 100.0
                    ),
                    "pages visited per cycle (% of the test set, log scale)",
                    label,
                    &series,
                ),
            ));
        }
    }
    plots.extend(budget_plots(a));
    let series = series_of(a, |m| per_position(m, |c| c.newly_visited));
    plots.push((
        "plots/newly-visited.svg".into(),
        line_chart(
            &format!(
                "{}: fraction of visits to pages not visited since the warm-up",
                setting(a)
            ),
            "scored test cycle",
            "newly visited",
            &series,
        ),
    ));
    plots.extend(arm_plots(a));
    plots.extend(front_plots(a));
    for g in &a.generations {
        let points = |v: &[f64]| -> Vec<(f64, f64)> {
            v.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect()
        };
        let series = [
            Series {
                label: "best".into(),
                points: points(&g.best),
                thin: false,
            },
            Series {
                label: "mean".into(),
                points: points(&g.mean),
                thin: false,
            },
        ];
        plots.push((
            format!("plots/fitness-{}.svg", g.configuration),
            line_chart(
                &format!(
                    "{}, trained at {}%: {} fitness per generation (mean over runs)",
                    dataset(a),
                    a.study.sim.resources() * 100.0,
                    g.configuration
                ),
                "generation",
                g.fitness.title(),
                &series,
            ),
        ));
    }
    plots
}

/// Per configuration, the fronts of size against validation fitness of the winning seeds
/// (one series per rotation, of the first strategy reported).
fn front_plots(a: &Analysis) -> Vec<(String, String)> {
    let mut plots = Vec::new();
    for c in &a.study.configurations {
        let Some(m) = a
            .methods
            .iter()
            .find(|m| m.configuration.as_deref() == Some(c.name.as_str()) && m.arms.is_empty())
        else {
            continue;
        };
        let series: Vec<Series> = m
            .chosen
            .iter()
            .filter(|ch| !ch.front.is_empty())
            .map(|ch| Series {
                label: format!("rotation {}", ch.rotation),
                points: ch
                    .front
                    .iter()
                    .map(|p| (p.size as f64, p.validation))
                    .collect(),
                thin: false,
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        plots.push((
            format!("plots/front-{}.svg", c.name),
            line_chart(
                &format!(
                    "{}: {} formulas kept, size against validation fitness (the Pareto front)",
                    dataset(a),
                    c.name
                ),
                "nodes of the simplified formula",
                &format!("validation {}", c.fitness.title()),
                &series,
            ),
        ));
    }
    plots
}

/// Each method's median metric against the budget, log axis, for the budget tables'
/// metrics: `plots/budgets-<metric>.svg`.
fn budget_plots(a: &Analysis) -> Vec<(String, String)> {
    if !a.study.evaluates() {
        return Vec::new();
    }
    super::summary::sweep_metrics(a)
        .into_iter()
        .map(|metric| {
            // Each budget once, in order (the study's own may also be among `top_resources`).
            let (levels, order) = (a.study.levels(), a.study.budget_order());
            let series = series_of(a, |m| {
                (order.iter())
                    .filter_map(|&i| m.budgets.iter().find(|b| b.resources == levels[i]))
                    .filter_map(|b| Some((b.resources * 100.0, b.of(metric)?.median)))
                    .collect()
            });
            let runs = a.study.run_seeds().len();
            (
                format!("plots/budgets-{}.svg", metric.name()),
                log_chart(
                    &format!(
                        "{}: {} against the budget (median of {}, decision {})",
                        dataset(a),
                        metric.title(),
                        count(runs, "run"),
                        a.study.sim.decision()
                    ),
                    "pages visited per cycle (% of the test set, log scale)",
                    metric.title(),
                    &series,
                ),
            )
        })
        .collect()
}

/// For each bandit method, its arms' probabilities per test cycle position (mean over
/// rotations): `plots/arms-<method>.svg`.
fn arm_plots(a: &Analysis) -> Vec<(String, String)> {
    let mut plots = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for m in a.methods.iter().filter(|m| !m.arms.is_empty()) {
        // Distinct file names, whatever the methods' names.
        let stem = file_name(&m.name);
        let name = (1..)
            .map(|n| match n {
                1 => format!("plots/arms-{stem}.svg"),
                n => format!("plots/arms-{stem}-{n}.svg"),
            })
            .find(|name| !names.contains(name))
            .unwrap_or_default();
        names.insert(name.clone());
        let positions = m.choices.iter().map(Vec::len).min().unwrap_or(0);
        let series: Vec<Series> = m
            .arms
            .iter()
            .enumerate()
            .map(|(j, arm)| Series {
                label: arm.clone(),
                points: (0..positions)
                    .map(|i| {
                        let q: Vec<f64> = m
                            .choices
                            .iter()
                            .filter_map(|r| r[i].q.get(j).copied())
                            .collect();
                        ((i + 1) as f64, mean(&q))
                    })
                    .collect(),
                thin: false,
            })
            .collect();
        plots.push((
            name,
            line_chart(
                &format!(
                    "{}: {} arm probabilities per test cycle (mean over rotations)",
                    setting(a),
                    m.name
                ),
                "scored test cycle",
                "probability q",
                &series,
            ),
        ));
    }
    plots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_has_lines_and_legend() {
        let series = [
            Series {
                label: "GP/best".into(),
                points: vec![(1.0, 0.5), (2.0, 0.7), (3.0, 0.6)],
                thin: false,
            },
            Series {
                label: "NAD".into(),
                points: vec![(1.0, 0.4), (2.0, 0.4), (3.0, 0.45)],
                thin: true,
            },
        ];
        let svg = line_chart("t", "x", "y", &series);
        assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
        assert!(svg.contains("GP/best") && svg.contains("NAD"));
        assert!(svg.matches("<polyline").count() >= 2, "{svg}");
        assert_eq!(svg, line_chart("t", "x", "y", &series));
    }

    /// The SVG's declared width.
    fn width(svg: &str) -> u32 {
        let at = svg.find("width=\"").unwrap() + 7;
        svg[at..].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn budget_axes_label_the_budgets_and_legends_fit_their_labels() {
        let long = "GP4C_Extended-WFreshness/sum_sigma_and_more";
        let series = [Series {
            label: long.into(),
            points: vec![(0.1, 0.5), (0.3, 0.6), (5.0, 0.8), (90.0, 0.99)],
            thin: false,
        }];
        let svg = log_chart("t", "budget", "y", &series);
        for tick in ["0.1", "0.3", "5", "90"] {
            assert!(svg.lines().any(|l| l.trim() == tick), "no tick {tick}");
        }
        // 13 px sans-serif glyphs are narrower than 7.5 px: the label ends inside.
        assert!(
            width(&svg) >= PLOT_WIDTH + 44 + 7 * long.len() as u32,
            "{}",
            width(&svg)
        );
        let short = [Series {
            label: "a".into(),
            ..series[0].clone()
        }];
        assert!(width(&log_chart("t", "b", "y", &short)) < width(&svg));
    }
}
