//! ε-lexicase selection (Spector 2012; La Cava, Spector and Danai 2016), with the smallest
//! survivor taken at the end (docs/src/reference/gp.md#selection).
//!
//! A fitness is a mean over *cases* ([`Evaluation::cases`](super::Evaluation): for the
//! crawl, every scored cycle of every training budget and metric). Tournaments compare the
//! means, so a formula that is a little better on average wins even when it is much worse
//! on one budget or one metric; lexicase compares cases one at a time, in a random order
//! drawn for each selection:
//!
//! 1. the candidates are the whole population;
//! 2. for the next case, keep the candidates within ε of the best candidate's value on
//!    it; ε is the case's median absolute deviation over the population (fixed for the
//!    generation), so that differences within a case's ordinary spread do not decide;
//! 3. stop when one candidate is left or the cases run out;
//! 4. of the candidates left, the one with the smallest canonical form wins (the first of
//!    them in population order on a tie).
//!
//! Generalists — formulas no worse than the best on whatever cases come first — survive,
//! and step 4 puts size pressure on selection without giving up any case: a long formula
//! is selected only where no shorter one does as well.
//!
//! **Determinism:** the case order comes from the offspring slot's own random stream, and
//! everything else is a function of the population, so a run is the same at any thread
//! count.

use rand::seq::SliceRandom;
use rand::Rng;

/// What ε-lexicase selection reads of a population: each individual's cases (case-major,
/// so a case's values lie side by side) and each case's ε.
pub(crate) struct Lexicase {
    /// `values[c * population + i]`: individual `i`'s value on case `c`.
    values: Vec<f64>,
    /// Each case's ε.
    epsilon: Vec<f64>,
    population: usize,
}

impl Lexicase {
    /// The cases of a population, each individual's in its order (an individual with
    /// fewer cases than another reads as −∞ past its last; NaN as −∞).
    pub(crate) fn new(population: &[&[f64]]) -> Lexicase {
        let n = population.len();
        let cases = population.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut values = Vec::with_capacity(cases * n);
        for c in 0..cases {
            values.extend(population.iter().map(|i| {
                let v = i.get(c).copied().unwrap_or(f64::NEG_INFINITY);
                if v.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    v
                }
            }));
        }
        let epsilon = values
            .chunks(n.max(1))
            .map(median_absolute_deviation)
            .collect();
        Lexicase {
            values,
            epsilon,
            population: n,
        }
    }

    /// The index of the individual one ε-lexicase selection picks, with the case order
    /// drawn from `rng` (see the module docs); `size(i)` is individual `i`'s size.
    pub(crate) fn select(&self, rng: &mut impl Rng, size: impl Fn(usize) -> usize) -> usize {
        let n = self.population;
        let mut order: Vec<usize> = (0..self.epsilon.len()).collect();
        order.shuffle(rng);
        let mut alive: Vec<usize> = (0..n).collect();
        for c in order {
            if alive.len() <= 1 {
                break;
            }
            let case = &self.values[c * n..(c + 1) * n];
            let best = alive
                .iter()
                .map(|&i| case[i])
                .fold(f64::NEG_INFINITY, f64::max);
            let floor = best - self.epsilon[c];
            alive.retain(|&i| case[i] >= floor);
        }
        // Invariant: the best candidate of every case survives it, so `alive` is never
        // empty (a population has at least 2 individuals).
        alive.into_iter().min_by_key(|&i| (size(i), i)).unwrap_or(0)
    }
}

/// The median absolute deviation of `values` from their median (0 for none; infinite
/// values leave the spread of the finite ones).
fn median_absolute_deviation(values: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return 0.0;
    }
    sorted.sort_by(f64::total_cmp);
    let median = median_of_sorted(&sorted);
    let mut deviations: Vec<f64> = sorted.iter().map(|v| (v - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    median_of_sorted(&deviations)
}

/// The median of sorted, non-empty `values`.
fn median_of_sorted(values: &[f64]) -> f64 {
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_median_absolute_deviation() {
        assert_eq!(median_absolute_deviation(&[1.0, 2.0, 3.0, 4.0, 100.0]), 1.0);
        assert_eq!(median_absolute_deviation(&[]), 0.0);
        assert_eq!(median_absolute_deviation(&[5.0, f64::NEG_INFINITY]), 0.0);
    }

    /// A specialist that is best on average but worst on one case loses to generalists;
    /// among equal generalists the smallest wins.
    #[test]
    fn generalists_win_and_the_smallest_of_them() {
        // Cases of a specialist (size 7), a long and a short generalist (5 and 1), and a
        // poor formula (1).
        let cases: [&[f64]; 4] = [
            &[1.0, 1.0, 0.0],
            &[0.6, 0.6, 0.6],
            &[0.6, 0.6, 0.6],
            &[0.1, 0.1, 0.1],
        ];
        let sizes = [7, 5, 1, 1];
        let lexicase = Lexicase::new(&cases);
        let size = |i: usize| sizes[i];
        let mut wins = [0; 4];
        for seed in 0..200 {
            let rng = &mut rand_pcg::Pcg64::seed_from_u64(seed);
            wins[lexicase.select(rng, size)] += 1;
        }
        // The specialist wins when a case where it is best comes first (2 of 3 orders);
        // otherwise the smallest generalist, never the longer one or the worst.
        assert!(wins[0] > 0 && wins[2] > 0, "{wins:?}");
        assert_eq!((wins[1], wins[3]), (0, 0), "{wins:?}");
    }
}
