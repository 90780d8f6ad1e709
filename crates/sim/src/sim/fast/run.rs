//! A run of the fast simulator, cycle by cycle: the warm-up (or a copy of a prepared
//! one), then per scored cycle step 1 (changes marked stale), step 2 (each live group
//! scored once and the groups ranked), step 3 (`choose.rs`), step 4 (`visit.rs`), and the
//! tally.

use super::super::bandit::Chooser;
use super::super::flat::Flat;
use super::super::metrics::Outcome;
use super::super::rank::{score_key, sort_chunk, tie_salt, Ranked, TieOrder};
use super::super::tally::{cycle_tally, stale_ideal, tallies_weights, WeightBounds};
use super::super::{Decision, Period, SimConfig};
use super::choose::{sort_by_score, Walk};
use super::groups::{Fast, Warm};
use crate::policy::{Policy, Scorer, Track};

impl Fast {
    /// Simulates `policy` over `period`: the warm-up (or, over a prepared period and for
    /// a policy without memory, a copy of its recorded state), then each scored cycle:
    /// mark, score and rank, choose, visit, tally.
    pub(crate) fn run(
        &mut self,
        period: &Period,
        policy: &Policy,
        config: &SimConfig,
        prepared: Option<(&TieOrder, &Warm)>,
    ) -> Outcome {
        if Flat::suits(period, policy, config) && !self.grouped_only() {
            return self.flat.run(period, policy, config, self.unweighted);
        }
        let pages = period.pages();
        let k = config.k(pages);
        self.discounts.up_to(k);
        let (order, first) = match prepared {
            // The recorded warm-up is every memoryless policy's that tracks nothing more.
            Some((order, warm))
                if !policy.remembers() && policy.features().track() == Track::NONE =>
            {
                self.restore(&warm.state);
                self.track = Track::NONE;
                self.host_taken.clear();
                self.host_taken.resize(period.hosts(), 0);
                (Some(order), warm.cycles + 1)
            }
            _ => (
                prepared.map(|(order, _)| order),
                self.warm_up(period, policy, config) + 1,
            ),
        };
        // Nothing is stale after the warm-up.
        let mut stale_count = 0usize;
        let mut outcome = Outcome::default();
        let mut chooser = Chooser::new(policy, config.seed(), config.metric());
        let tallied = tallies_weights(period, policy, self.unweighted);
        let top = period.top_weight(k);
        outcome
            .cycles
            .reserve(period.len().saturating_sub(config.warmup()));
        for d in first..=period.len() {
            stale_count += self.mark_changes(period, d);
            let cycle = d as u32;
            let capped = config.host_cap_over(period).is_some();
            self.score_and_rank(chooser.scorer(cycle), (cycle, k, capped), config.decision());
            let walk = Walk {
                cycle,
                k,
                pages,
                warmup: config.warmup(),
                salt: tie_salt(config.seed(), cycle),
                order: order.map(|o| o.cycle(d)),
                period,
                cap: config.host_cap_over(period),
                weighted: tallied,
            };
            let stale_before = stale_count;
            let bounds = tallied.then(|| WeightBounds {
                ideal_dcg: stale_ideal(
                    (&self.stale, period),
                    stale_before.min(k),
                    &self.discounts,
                    &mut self.ideal_ranks,
                ),
                top,
            });
            let chosen = match config.decision() {
                Decision::Sample => self
                    .sample(&walk, config.seed())
                    .unwrap_or_else(|| self.choose(&walk)),
                Decision::TopK => self.choose(&walk),
            };
            self.visit_all(period, policy, cycle);
            stale_count -= chosen.found;
            let metrics = cycle_tally(
                (d, k, period),
                (stale_before, stale_count),
                &chosen,
                bounds,
                (&self.stale, &self.discounts),
            );
            outcome.choices.extend(chooser.reward(&metrics));
            outcome.cycles.push(metrics);
        }
        outcome
    }

    /// Step 2: scores each live group once (a rate policy first solves its rates over
    /// the groups, each counted with its pages) and sorts the groups best first (for an
    /// uncapped top-k walk over many groups, only the prefix it reads: [`Fast::rank_prefix`]).
    fn score_and_rank(
        &mut self,
        policy: &Scorer,
        (cycle, k, capped): (u32, usize, bool),
        decision: Decision,
    ) {
        self.group_pages.clear();
        let groups = &self.groups;
        self.group_pages
            .extend(self.live.iter().map(|&g| groups[g as usize].page));
        self.scores.resize(self.live.len(), 0.0);
        let population = self
            .live
            .iter()
            .map(|&g| &groups[g as usize])
            .map(|group| (&group.page, group.members.len() as u32));
        let context = decision.scoring(policy.context(
            cycle,
            k,
            &self.host_rates,
            population,
            &mut self.buffers,
        ));
        policy.score_into(
            &self.group_pages,
            &context,
            &mut self.scores,
            &mut self.buffers,
        );
        self.ranked.clear();
        self.ranked.extend(
            self.scores
                .iter()
                .zip(&self.live)
                .map(|(&s, &g)| Ranked::new(score_key(s), g)),
        );
        if decision == Decision::TopK && !capped && k > 0 && self.ranked.len() > 4 * k {
            self.rank_prefix(k);
        } else {
            sort_by_score(&mut self.ranked);
        }
        #[cfg(test)]
        if self.scramble {
            // Every group of a class of two or more moves.
            for class in self.ranked.chunk_by_mut(|a, b| a.key() == b.key()) {
                class.rotate_left(1);
            }
        }
    }

    /// Leaves in `ranked` only the prefix of the ranking an uncapped top-k walk reads, in
    /// score order: every group ranked above the k-th (sorted), and the whole class (score)
    /// of the k-th after them.
    /// A live group holds a page at least, so the walk takes k pages inside it. O(G + k
    /// log k) instead of sorting all G groups.
    fn rank_prefix(&mut self, k: usize) {
        let end = sort_chunk(&mut self.ranked, k, sort_by_score);
        self.ranked.truncate(end);
    }
}
