//! Why a scheduler operation was refused ([`ScheduleError`]; the state is unchanged).

/// Why a scheduler operation was refused (the state is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The page is not in the scheduler.
    #[error("page {0} is not scheduled (add it first)")]
    UnknownPage(String),
    /// A page id or host that is empty or holds a TAB or line break.
    #[error("{0}")]
    BadText(String),
    /// The page is already in the scheduler.
    #[error("page {0} is already scheduled")]
    DuplicatePage(String),
    /// An observation at a cycle not after the page's last one.
    #[error(
        "page {page}: observation at cycle {cycle} is not after its last observation \
         (cycle {last}; cycles start at 1)"
    )]
    CycleNotAfter {
        /// The page.
        page: String,
        /// The cycle given.
        cycle: u32,
        /// The page's last observed cycle (0: never).
        last: u32,
    },
    /// A batch asked for a cycle not after the latest observation.
    #[error(
        "a batch for cycle {cycle} must come after the latest observation (cycle {latest}): \
         batches rank the state before the cycle's downloads"
    )]
    BatchCycle {
        /// The cycle asked for.
        cycle: u32,
        /// The latest observed cycle.
        latest: u32,
    },
    /// A host cap of 0 would refuse every page of a host (a cap must be >= 1:
    /// docs/src/reference/simulation.md#politeness-the-host-cap).
    #[error("a host cap must be at least 1 (a cap of 0 would crawl no page of any host)")]
    ZeroHostCap,
    /// A page weight that is not a finite number >= 0 (docs/src/reference/data.md#page-weights).
    #[error("page {page}: weight {weight} must be a finite number >= 0")]
    Weight {
        /// The page.
        page: String,
        /// The weight given, as text.
        weight: String,
    },
    /// Too many pages for 32-bit slots.
    #[error("more than {} pages", u32::MAX - 1)]
    Full,
    /// A bandit's batch asked for a cycle before its pending batch's.
    #[error(
        "a batch for cycle {cycle} comes before the pending batch of cycle {pending}: a \
         bandit's batches go forward in time (its reward is counted by cycle)"
    )]
    BanditCycle {
        /// The cycle asked for.
        cycle: u32,
        /// The pending batch's cycle.
        pending: u32,
    },
    /// A sampled batch under a host cap (the draw of
    /// docs/src/reference/simulation.md#sampled-decisions is defined without one).
    #[error(
        "a sampled batch cannot be host-capped: the draw fixes each page's inclusion \
         probability, which a cap would change (use top-k batches with a host cap)"
    )]
    SampleWithCap,
    /// A bandit rewarded by a metric a crawler cannot observe.
    #[error(
        "a bandit in a live crawl can be rewarded by changerate only (a crawler cannot \
         observe {0}, which needs the pages it did not download): write `reward: changerate`"
    )]
    Reward(&'static str),
    /// A bad attribute key or value (docs/src/reference/data.md#attributes), with the reason.
    #[error("{0}")]
    Attribute(String),
    /// A learned model reads the group rate of an attribute the pages are not grouped by
    /// (`schedule --group KEY` groups them).
    #[error(transparent)]
    Grouping(#[from] crate::policy::GroupingError),
    /// The oracle, which reads what no crawler knows.
    #[error("the oracle ranks by each page's latent change probability, which only a synthetic history records: a crawler's scheduler cannot run it (docs/src/reference/policies.md#the-oracle)")]
    Oracle,
}
