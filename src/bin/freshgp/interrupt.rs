//! Ctrl-C in a long run (`evolve`, `experiment`, `model train`): the first one stops the run
//! at its next step (a generation, a unit, a penalty, an epoch), through the library's
//! progress callbacks (they return `ControlFlow::Break`), so that what it finished is kept
//! (an experiment's stored units, which `--resume` goes on from) and nothing is half
//! written; a second one ends the process at once, as Ctrl-C always does. Work past the
//! last step (choosing and testing the evolved formulas, scoring the test pages, writing
//! the report) is short and finishes.

use freshgp::experiment::units::RunError;
use freshgp::experiment::ExperimentError;
use freshgp::predict::PredictError;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_STATUS: i32 = 130;

/// Whether Ctrl-C was pressed since the run started watching.
#[derive(Debug, Clone)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Starts watching for Ctrl-C. Where the handlers cannot be installed, Ctrl-C keeps its
    /// default action (it ends the process): nothing better to do then.
    pub fn watch() -> Interrupt {
        let pressed = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        {
            use signal_hook::consts::SIGINT;
            // In order: a second Ctrl-C (the flag already set) ends the process; the
            // first sets the flag.
            let _ = signal_hook::flag::register_conditional_shutdown(
                SIGINT,
                EXIT_STATUS,
                Arc::clone(&pressed),
            );
            let _ = signal_hook::flag::register(SIGINT, Arc::clone(&pressed));
        }
        Interrupt(pressed)
    }

    /// What a progress callback answers: stop once Ctrl-C was pressed.
    pub fn flow(&self) -> ControlFlow<()> {
        match self.0.load(Ordering::Relaxed) {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }
}

/// Whether `err` is a run's stop at a progress callback's request.
pub fn stopped(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<ExperimentError>(),
            Some(ExperimentError::Stopped)
        ) || matches!(
            cause.downcast_ref::<RunError>(),
            Some(RunError::Experiment(ExperimentError::Stopped))
        ) || matches!(
            cause.downcast_ref::<PredictError>(),
            Some(PredictError::Stopped)
        )
    })
}
