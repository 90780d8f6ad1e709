//! Opening a run's state: the saved state at a path, held to the policy and tie seed the
//! run gives, or a new state created with them. The command (`freshgp schedule`) and the
//! Python `Scheduler` open states through this one rule; each takes the state's lock
//! first ([`StateLock`](super::StateLock)).

use super::{PageId, ScheduleError, Scheduler, StateError};
use crate::policy::Policy;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::path::Path;

/// What a run asks of the state it opens. Build it with [`Opening::new`], which checks the
/// policy before any file is touched.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    policy: Option<Policy>,
    tie_seed: Option<u64>,
}

/// Why a state cannot be opened as asked.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file cannot be read, or is no scheduler state.
    #[error(transparent)]
    State(#[from] StateError),
    /// The state ranks with another policy than the one given.
    #[error(
        "{state} schedules with `{has}`, not `{given}`: omit the policy to keep it, or use a \
         new state file"
    )]
    PolicyDiffers {
        /// The state file.
        state: String,
        /// Its policy.
        has: String,
        /// The policy given.
        given: String,
    },
    /// The state was created with another tie seed than the one given.
    #[error("{state} was created with tie seed {has}, not {given}")]
    SeedDiffers {
        /// The state file.
        state: String,
        /// Its seed.
        has: u64,
        /// The seed given.
        given: u64,
    },
    /// No state at the path, and no policy to create one with.
    #[error("{state} does not exist: give a policy to create it")]
    Missing {
        /// The state file.
        state: String,
    },
}

impl Opening {
    /// A run with `policy` (`None`: the state's own) and `tie_seed` (`None`: the state's
    /// own, 0 for a new state).
    ///
    /// # Errors
    /// A policy that cannot rank a live crawl ([`Scheduler::check_policy`]).
    pub fn new(policy: Option<Policy>, tie_seed: Option<u64>) -> Result<Opening, ScheduleError> {
        if let Some(policy) = &policy {
            Scheduler::<String>::check_policy(policy)?;
        }
        Ok(Opening { policy, tie_seed })
    }

    /// The state at `path` if it exists, else a new one.
    ///
    /// # Errors
    /// An unreadable state, one whose policy or tie seed differs from those given, or no
    /// state and no policy.
    pub fn open<K>(self, path: &Path) -> Result<Scheduler<K>, OpenError>
    where
        K: PageId + Serialize + DeserializeOwned + 'static,
    {
        let state = path.display().to_string();
        if !path.exists() {
            let Some(policy) = self.policy else {
                return Err(OpenError::Missing { state });
            };
            return Ok(Scheduler::new(policy).with_seed(self.tie_seed.unwrap_or(0)));
        }
        let s: Scheduler<K> = Scheduler::load(path)?;
        if let Some(given) = self.policy.filter(|p| p != s.policy()) {
            return Err(OpenError::PolicyDiffers {
                state,
                has: s.policy().to_string(),
                given: given.to_string(),
            });
        }
        if let Some(given) = self.tie_seed.filter(|&seed| seed != s.seed()) {
            return Err(OpenError::SeedDiffers {
                state,
                has: s.seed(),
                given,
            });
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Grammar;

    fn policy(text: &str) -> Policy {
        Policy::parse(text, &Grammar::every()).unwrap()
    }

    #[test]
    fn a_state_is_created_then_held_to_its_policy_and_seed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.state");
        let missing = Opening::new(None, None).unwrap().open::<String>(&path);
        assert!(
            matches!(missing, Err(OpenError::Missing { .. })),
            "{missing:?}"
        );
        let mut s: Scheduler<String> = Opening::new(Some(policy("NAD")), Some(7))
            .unwrap()
            .open(&path)
            .unwrap();
        assert_eq!((s.policy(), s.seed()), (&policy("NAD"), 7));
        s.add("a".to_string()).unwrap();
        s.observe("a", 1, true).unwrap();
        s.save(&path).unwrap();
        // Reopened with nothing given, with the same settings, or with others.
        let kept: Scheduler<String> = Opening::new(None, None).unwrap().open(&path).unwrap();
        assert_eq!((kept.len(), kept.seed()), (1, 7));
        let same = Opening::new(Some(policy("NAD")), Some(7))
            .unwrap()
            .open::<String>(&path);
        assert_eq!(same.unwrap().len(), 1);
        let other = Opening::new(Some(policy("Age")), None)
            .unwrap()
            .open::<String>(&path);
        let e = other.unwrap_err();
        assert!(matches!(e, OpenError::PolicyDiffers { .. }));
        assert!(
            e.to_string().contains("schedules with `NAD`, not `Age`"),
            "{e}"
        );
        let seed = Opening::new(None, Some(8)).unwrap().open::<String>(&path);
        assert_eq!(
            seed.unwrap_err().to_string(),
            format!("{} was created with tie seed 7, not 8", path.display())
        );
    }

    #[test]
    fn a_policy_a_crawl_cannot_run_is_refused_before_any_file() {
        assert!(Opening::new(Some(policy("oracle")), None).is_err());
        let unread = std::path::Path::new("/nonexistent/dir/s.state");
        let e = Opening::new(None, None).unwrap().open::<String>(unread);
        assert!(matches!(e, Err(OpenError::Missing { .. })));
    }
}
