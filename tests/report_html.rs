//! `report.html` opened in headless Chromium, driven over the DevTools protocol
//! (`headless_chrome`): the report of a tiny study with every section (two configurations,
//! a bandit with an evolved arm, a bandit baseline, a budget sweep with runs, a Wilcoxon
//! reference and savings) loads with no console error, no uncaught exception and no failed
//! or external load, and shows every table of `summary.md` and every plot with a non-zero
//! rendered size. A deliberately broken page shows that the checks catch each fault.
//!
//! Chromium must be installed at `/usr/bin/chromium` (`apt-get install -y chromium`;
//! `.ci/run` installs it): without it these tests fail, saying so.

use assert_cmd::Command;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Log, Network, Runtime};
use headless_chrome::{Browser, LaunchOptions};
use serde::Deserialize;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";

/// A tiny study with every section the report can have.
const STUDY: &str = r#"(
    name: "every-section",
    description: "Every section of a report, with <markup> & \"quotes\" to escape.",
    dataset: Synthetic(preset: "commerce", pages: 1000, days: 21, seed: 2),
    rotations: [0, 1],
    resources: [0.005, 0.05, 0.5],
    train_resources: 0.1,
    decision: sample,
    runs: 3,
    reference: lambda,
    savings: [lambda, nutch],
    metric: wfreshness,
    seeds: 1,
    gp: (population: 8, generations: 2),
    configurations: [
        (name: "Ext-WF", grammar: "extended", fitness: wfreshness, bandits: [kab3]),
        (name: "All-NDCG", grammar: "all", fitness: ndcg),
    ],
    baselines: [uniform, lambda, nutch, kab3],
    reports: (strategies: [best, sum_sigma]),
)"#;

/// Chromium's path; fails with how to install it when it is absent.
fn chromium() -> PathBuf {
    let path = PathBuf::from(CHROMIUM);
    assert!(
        path.exists(),
        "{CHROMIUM} is missing: the report.html tests render the report in headless Chromium; \
         install it with `apt-get install -y chromium` (as root; .ci/run does this)"
    );
    path
}

/// A headless Chromium with a fresh profile in `profile`, no network chatter.
fn launch(profile: &Path) -> Browser {
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ];
    let options = LaunchOptions::default_builder()
        .path(Some(chromium()))
        .headless(true)
        .sandbox(false)
        .enable_gpu(false)
        .user_data_dir(Some(profile.to_path_buf()))
        .window_size(Some((1280, 1024)))
        .idle_browser_timeout(Duration::from_secs(120))
        .args(flags.iter().map(OsStr::new).collect())
        .build()
        .expect("launch options");
    Browser::new(options).expect("headless Chromium starts")
}

/// An element as rendered: what identifies it and its box.
#[derive(Debug, Deserialize)]
struct Shown {
    /// A table's header cells, or an SVG's figure id.
    label: Vec<String>,
    /// A table's class attribute (empty for SVGs).
    class: String,
    width: f64,
    height: f64,
    /// Not `display: none` anywhere up the tree, nor `visibility: hidden`.
    visible: bool,
}

/// What the page showed and loaded.
#[derive(Debug, Deserialize)]
struct Dom {
    tables: Vec<Shown>,
    svgs: Vec<Shown>,
    /// Every resource the page fetched (the report fetches none).
    resources: Vec<String>,
    /// `<script>` elements.
    scripts: usize,
    /// The text of the first paragraph (the study's description).
    description: String,
}

/// A page rendered: the console errors, exceptions and failed loads seen, and its DOM.
struct Rendered {
    problems: Vec<String>,
    dom: Dom,
}

/// What the page's DOM reports, as JSON.
const INSPECT: &str = r#"JSON.stringify((() => {
    const shown = (e) => {
        const r = e.getBoundingClientRect();
        const style = getComputedStyle(e);
        return { width: r.width, height: r.height,
                 visible: e.getClientRects().length > 0 && style.visibility !== "hidden" };
    };
    const tables = [...document.querySelectorAll("table")].map((t) => Object.assign(shown(t), {
        label: [...t.querySelectorAll("thead th")].map((th) => th.textContent),
        class: t.className }));
    const svgs = [...document.querySelectorAll("svg")].filter((s) => !s.parentElement.closest("svg"))
        .map((s) => Object.assign(shown(s), {
            label: [s.closest("figure") ? s.closest("figure").id : ""], class: "" }));
    const p = document.querySelector("p");
    return { tables, svgs,
             resources: performance.getEntriesByType("resource").map((e) => e.name),
             scripts: document.querySelectorAll("script").length,
             description: p ? p.textContent : "" };
})())"#;

/// Opens `page` in a new tab of `browser` and collects what went wrong and what shows.
fn render(browser: &Browser, page: &Path) -> Rendered {
    let tab = browser.new_tab().expect("a tab");
    let problems = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&problems);
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let problem = match event {
            Event::RuntimeConsoleAPICalled(e)
                if matches!(
                    e.params.Type,
                    Runtime::ConsoleAPICalledEventTypeOption::Error
                        | Runtime::ConsoleAPICalledEventTypeOption::Assert
                ) =>
            {
                let args: Vec<String> = e
                    .params
                    .args
                    .iter()
                    .map(|a| {
                        a.value
                            .as_ref()
                            .map_or_else(|| format!("{:?}", a.description), |v| v.to_string())
                    })
                    .collect();
                Some(format!("console error: {}", args.join(" ")))
            }
            Event::RuntimeExceptionThrown(e) => {
                let d = &e.params.exception_details;
                let what = d
                    .exception
                    .as_ref()
                    .and_then(|x| x.description.clone())
                    .unwrap_or_default();
                Some(format!("uncaught exception: {} {what}", d.text))
            }
            Event::LogEntryAdded(e) if e.params.entry.level == Log::LogEntryLevel::Error => {
                Some(format!(
                    "log error: {} ({})",
                    e.params.entry.text,
                    e.params.entry.url.clone().unwrap_or_default()
                ))
            }
            Event::NetworkLoadingFailed(e) => Some(format!(
                "failed load: {} ({:?})",
                e.params.error_text, e.params.Type
            )),
            _ => None,
        };
        if let Some(p) = problem {
            sink.lock().unwrap().push(p);
        }
    }))
    .unwrap();
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .unwrap();
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .expect("the page loads");
    let json = tab.evaluate(INSPECT, false).expect("the DOM is inspected");
    let dom: Dom = serde_json::from_str(
        json.value
            .as_ref()
            .and_then(|v| v.as_str())
            .expect("a JSON string"),
    )
    .unwrap();
    // Events travel on their own thread: let the last ones arrive.
    std::thread::sleep(Duration::from_millis(500));
    let problems = problems.lock().unwrap().clone();
    Rendered { problems, dom }
}

/// Everything wrong with `r` as a rendering of a report whose summary has tables with the
/// headers `tables` (in order) and whose plots are the files `plots` (`plots/NAME.svg`).
fn faults(r: &Rendered, tables: &[Vec<String>], plots: &[String]) -> Vec<String> {
    let mut out = r.problems.clone();
    if !r.dom.resources.is_empty() {
        out.push(format!("resources fetched: {:?}", r.dom.resources));
    }
    if r.dom.scripts > 0 {
        out.push(format!("{} script elements", r.dom.scripts));
    }
    let hidden = |e: &Shown| !(e.visible && e.width > 0.0 && e.height > 0.0);
    for e in r.dom.tables.iter().chain(&r.dom.svgs).filter(|e| hidden(e)) {
        out.push(format!(
            "not shown: {:?} ({} × {}, visible {})",
            e.label, e.width, e.height, e.visible
        ));
    }
    let summary: Vec<&Vec<String>> = r
        .dom
        .tables
        .iter()
        .filter(|t| t.class != "settings")
        .map(|t| &t.label)
        .collect();
    if summary.len() != tables.len() || summary.iter().zip(tables).any(|(a, b)| *a != b) {
        out.push(format!(
            "the summary's tables {tables:?} are not the page's {summary:?}"
        ));
    }
    let mut ids: Vec<String> = r.dom.svgs.iter().flat_map(|s| s.label.clone()).collect();
    ids.sort();
    let mut expected: Vec<String> = plots
        .iter()
        .map(|p| {
            format!(
                "plot-{}",
                p.trim_start_matches("plots/").trim_end_matches(".svg")
            )
        })
        .collect();
    expected.sort();
    if ids != expected {
        out.push(format!("the page's plots {ids:?} are not {expected:?}"));
    }
    out
}

/// The header cells of every table of a Markdown text.
fn markdown_tables(text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].starts_with("| ") && w[1].starts_with("|---"))
        .map(|w| {
            w[0].trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The plot files of a report directory, as `plots/NAME.svg`.
fn plot_files(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir.join("plots"))
        .unwrap()
        .map(|e| format!("plots/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    out.sort();
    out
}

#[test]
fn the_report_page_shows_every_table_and_plot_without_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("study.ron");
    std::fs::write(&study, STUDY).unwrap();
    let out = tmp.path().join("out");
    Command::cargo_bin("freshgp")
        .unwrap()
        .arg("experiment")
        .arg(&study)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    let page = out.join("report.html");
    let first = std::fs::read(&page).unwrap();
    // `freshgp report` writes it again, byte for byte, and says so.
    let report = Command::cargo_bin("freshgp")
        .unwrap()
        .arg("report")
        .arg(&out)
        .assert()
        .success();
    let printed = String::from_utf8(report.get_output().stdout.clone()).unwrap();
    assert!(
        printed.lines().any(|l| l == page.display().to_string()),
        "{printed}"
    );
    assert_eq!(std::fs::read(&page).unwrap(), first);

    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let tables = markdown_tables(&summary);
    for section in [
        "Table 3b",
        "Budgets",
        "Savings",
        "Bandits",
        "Top of the schedule",
    ] {
        assert!(summary.contains(&format!("## {section}")), "{section}");
    }
    let plots = plot_files(&out);
    assert!(
        plots.iter().any(|p| p.starts_with("plots/arms-")),
        "{plots:?}"
    );
    assert!(plots.iter().any(|p| p.starts_with("plots/budgets-")));

    let profile = tempfile::tempdir().unwrap();
    let browser = launch(profile.path());
    let rendered = render(&browser, &page);
    let found = faults(&rendered, &tables, &plots);
    assert!(found.is_empty(), "report.html: {found:#?}");
    // Sanity of the check itself: it saw the tables and plots it was told of.
    assert!(rendered.dom.tables.len() > tables.len(), "and the settings");
    assert_eq!(rendered.dom.svgs.len(), plots.len());
    // The study's text shows as text, not markup.
    assert_eq!(
        rendered.dom.description,
        "Every section of a report, with <markup> & \"quotes\" to escape."
    );
}

#[test]
fn the_checks_catch_errors_failed_loads_and_hidden_elements() {
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("broken.html");
    std::fs::write(
        &page,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>broken</title></head><body>
<p>broken</p>
<table><thead><tr><th>Method</th><th>NDCG</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>
<table style="display:none"><thead><tr><th>Hidden</th></tr></thead><tbody><tr><td>x</td></tr></tbody></table>
<figure id="plot-empty"><svg width="0" height="0"></svg></figure>
<img src="missing.png" alt="">
<script>console.error("deliberate console error"); notDefinedAnywhere();</script>
</body></html>
"#,
    )
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(profile.path());
    let rendered = render(&browser, &page);
    let tables = vec![
        vec!["Method".to_string(), "NDCG".to_string()],
        vec!["Hidden".to_string()],
    ];
    let plots = vec!["plots/empty.svg".to_string(), "plots/lost.svg".to_string()];
    let found = faults(&rendered, &tables, &plots).join("\n");
    for expected in [
        "console error: \"deliberate console error\"",
        "uncaught exception",
        "notDefinedAnywhere",
        "missing.png",
        "1 script elements",
        "not shown: [\"Hidden\"]",
        "not shown: [\"plot-empty\"]",
        "the page's plots [\"plot-empty\"] are not [\"plot-empty\", \"plot-lost\"]",
    ] {
        assert!(found.contains(expected), "{expected} not in:\n{found}");
    }
    // The visible table passes.
    assert!(!found.contains("not shown: [\"Method\""), "{found}");
    // A missing table is caught too.
    let missing = faults(&rendered, &tables[..1], &plots[..1]).join("\n");
    assert!(missing.contains("the summary's tables"), "{missing}");
}
