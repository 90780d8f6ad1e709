//! Progress of long sweeps on stderr: one line per step at most once a second (and the
//! last), with the elapsed time and an estimate of the time left.

use std::time::{Duration, Instant};

/// A count of finished steps out of a known total, reported on stderr.
pub struct Bar {
    label: &'static str,
    total: u64,
    done: u64,
    start: Instant,
    shown: Option<Instant>,
}

impl Bar {
    /// A bar for `total` steps of `label`.
    pub fn new(label: &'static str, total: u64) -> Bar {
        Bar {
            label,
            total,
            done: 0,
            start: Instant::now(),
            shown: None,
        }
    }

    /// One more step done.
    pub fn inc(&mut self) {
        self.set(self.done + 1);
    }

    /// `done` steps done.
    pub fn set(&mut self, done: u64) {
        self.done = done;
        let now = Instant::now();
        if self.shown.is_some_and(|t| now - t < Duration::from_secs(1)) && done < self.total {
            return;
        }
        self.shown = Some(now);
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = if done == 0 {
            String::new()
        } else {
            let eta = elapsed / done as f64 * (self.total - done.min(self.total)) as f64;
            format!(", about {eta:.0} s left")
        };
        eprintln!(
            "[{done}/{}] {} ({elapsed:.0} s{left})",
            self.total, self.label
        );
    }

    /// The last line, if it was not shown.
    pub fn finish(&mut self) {
        if self.done < self.total {
            self.set(self.total);
        }
    }
}
