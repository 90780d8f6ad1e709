//! Two objectives at once: fitness (higher is better) against size (fewer nodes is
//! better), after NSGA-II (Deb et al. 2002), as symbolic-regression engines such as Operon
//! and PySR trade accuracy against complexity.
//!
//! A point *dominates* another when it is no worse on both objectives and better on one.
//! [`fronts`] sorts points into non-dominated fronts (front 0 is the Pareto front: no point
//! dominates them); [`crowding`] measures, inside one front, how far a point is from its
//! neighbours on each objective, so that selection keeps the front spread out. [`survivors`]
//! is NSGA-II's environmental selection: whole fronts in order, the last one cut by
//! crowding. [`Rank`] orders points by (front, crowding), the comparison NSGA-II's binary
//! tournament uses.
//!
//! Ties are broken by position, so every result is a function of the points' order alone:
//! a run stays the same at any thread count.

use std::cmp::Ordering;

/// One point: its fitness and its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Higher is better.
    pub fitness: f64,
    /// Fewer is better.
    pub size: usize,
}

impl Point {
    /// Whether `self` dominates `other`: no worse on both objectives, better on one.
    /// Fitness is compared by [`f64::total_cmp`], so a NaN never dominates and is never
    /// dominated inconsistently.
    pub fn dominates(&self, other: &Point) -> bool {
        let fitness = self.fitness.total_cmp(&other.fitness);
        let size = other.size.cmp(&self.size);
        fitness != Ordering::Less
            && size != Ordering::Less
            && (fitness == Ordering::Greater || size == Ordering::Greater)
    }
}

/// The non-dominated fronts of `points`, as indices: front 0 first, each front in index
/// order. Every index appears in exactly one front.
///
/// Points of equal size are compared by fitness alone, so the sort runs over sizes in
/// ascending order, each point checked against the fronts found so far: O(n · fronts ·
/// front size) rather than all pairs when sizes are few, as they are in GP.
pub fn fronts(points: &[Point]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    // Smaller first, then fitter: a point can only be dominated by one sorted before it.
    order.sort_by(|&a, &b| {
        points[a]
            .size
            .cmp(&points[b].size)
            .then(points[b].fitness.total_cmp(&points[a].fitness))
            .then(a.cmp(&b))
    });
    let mut fronts: Vec<Vec<usize>> = Vec::new();
    for i in order {
        // The first front none of whose points dominates i (fronts only get worse).
        let place = fronts
            .iter()
            .position(|front| !front.iter().any(|&j| points[j].dominates(&points[i])))
            .unwrap_or(fronts.len());
        if place == fronts.len() {
            fronts.push(Vec::new());
        }
        fronts[place].push(i);
    }
    for front in &mut fronts {
        front.sort_unstable();
    }
    fronts
}

/// The crowding distance of each point of `front` (indices into `points`), in the order of
/// `front`: the sum over both objectives of the gap between its two neighbours, divided by
/// the objective's range in the front; the extremes of each objective get infinity.
pub fn crowding(points: &[Point], front: &[usize]) -> Vec<f64> {
    let n = front.len();
    let mut distance = vec![0.0; n];
    if n <= 2 {
        return vec![f64::INFINITY; n];
    }
    let objectives: [&dyn Fn(usize) -> f64; 2] = [&|i| points[front[i]].fitness, &|i| {
        points[front[i]].size as f64
    }];
    for value in objectives {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| value(a).total_cmp(&value(b)).then(a.cmp(&b)));
        let (low, high) = (value(order[0]), value(order[n - 1]));
        distance[order[0]] = f64::INFINITY;
        distance[order[n - 1]] = f64::INFINITY;
        let range = high - low;
        if !(range > 0.0 && range.is_finite()) {
            continue;
        }
        for k in 1..n - 1 {
            distance[order[k]] += (value(order[k + 1]) - value(order[k - 1])) / range;
        }
    }
    distance
}

/// A point's standing for selection: its front (lower is better), then its crowding
/// distance (higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// The index of its front, 0 for the Pareto front.
    pub front: usize,
    /// Its crowding distance in that front.
    pub crowding: f64,
}

impl Rank {
    /// `Less` when `self` is the better standing.
    pub fn cmp_better(&self, other: &Rank) -> Ordering {
        self.front
            .cmp(&other.front)
            .then(other.crowding.total_cmp(&self.crowding))
    }
}

/// The standing of every point, in the order of `points`.
pub fn ranks(points: &[Point]) -> Vec<Rank> {
    let mut ranks = vec![
        Rank {
            front: 0,
            crowding: 0.0
        };
        points.len()
    ];
    for (f, front) in fronts(points).iter().enumerate() {
        for (&i, c) in front.iter().zip(crowding(points, front)) {
            ranks[i] = Rank {
                front: f,
                crowding: c,
            };
        }
    }
    ranks
}

/// NSGA-II's environmental selection: the indices of the `keep` points that survive —
/// whole fronts in order, then the most crowding-distant points of the first front that
/// does not fit (earlier index on ties). Returned in index order.
pub fn survivors(points: &[Point], keep: usize) -> Vec<usize> {
    let mut chosen = Vec::with_capacity(keep.min(points.len()));
    for front in fronts(points) {
        if chosen.len() + front.len() <= keep {
            chosen.extend(front);
            continue;
        }
        let distance = crowding(points, &front);
        let mut order: Vec<usize> = (0..front.len()).collect();
        order.sort_by(|&a, &b| distance[b].total_cmp(&distance[a]).then(a.cmp(&b)));
        let room = keep - chosen.len();
        chosen.extend(order[..room].iter().map(|&k| front[k]));
        break;
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(fitness: f64, size: usize) -> Point {
        Point { fitness, size }
    }

    #[test]
    fn domination_needs_one_strict_gain() {
        assert!(p(0.5, 3).dominates(&p(0.4, 3)));
        assert!(p(0.5, 3).dominates(&p(0.5, 4)));
        assert!(!p(0.5, 3).dominates(&p(0.5, 3)));
        assert!(!p(0.5, 3).dominates(&p(0.6, 5)));
        assert!(!p(0.5, 3).dominates(&p(0.4, 2)));
    }

    /// Fronts by brute force: a point is in front f when it is dominated only by points
    /// of fronts below f.
    fn fronts_by_definition(points: &[Point]) -> Vec<Vec<usize>> {
        let mut left: Vec<usize> = (0..points.len()).collect();
        let mut out = Vec::new();
        while !left.is_empty() {
            let front: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&i| !left.iter().any(|&j| points[j].dominates(&points[i])))
                .collect();
            left.retain(|i| !front.contains(i));
            out.push(front);
        }
        out
    }

    #[test]
    fn fronts_are_the_definitions() {
        let mut state = 7u64;
        for case in 0..200 {
            let n = 1 + case % 40;
            let points: Vec<Point> = (0..n)
                .map(|_| {
                    state = crate::hash::mix64(state);
                    // Few distinct values, so ties on both objectives are common.
                    p((state % 7) as f64 / 7.0, 1 + (state >> 8) as usize % 6)
                })
                .collect();
            assert_eq!(fronts(&points), fronts_by_definition(&points), "{points:?}");
        }
    }

    #[test]
    fn crowding_worked_by_hand() {
        // One front, sizes 1..4, fitness rising with size.
        let points = [p(0.1, 1), p(0.4, 2), p(0.5, 3), p(0.9, 4)];
        let front = [0, 1, 2, 3];
        let d = crowding(&points, &front);
        assert_eq!(d[0], f64::INFINITY);
        assert_eq!(d[3], f64::INFINITY);
        // Point 1: fitness gap (0.5 - 0.1) / 0.8, size gap (3 - 1) / 3.
        assert!((d[1] - (0.4 / 0.8 + 2.0 / 3.0)).abs() < 1e-12);
        assert!((d[2] - (0.5 / 0.8 + 2.0 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn survivors_keep_whole_fronts_then_the_spread() {
        // Front 0: (0.9, 5), (0.5, 2), (0.2, 1); front 1: (0.8, 6), (0.4, 3).
        let points = [p(0.9, 5), p(0.8, 6), p(0.5, 2), p(0.4, 3), p(0.2, 1)];
        assert_eq!(fronts(&points), [vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(survivors(&points, 3), [0, 2, 4]);
        assert_eq!(survivors(&points, 5), [0, 1, 2, 3, 4]);
        // Cutting front 0 to two: the extremes (infinite crowding) stay.
        assert_eq!(survivors(&points, 2), [0, 4]);
        let r = ranks(&points);
        assert_eq!(r[3].front, 1);
        assert_eq!(r[2].cmp_better(&r[3]), Ordering::Less);
        assert_eq!(
            r[0].cmp_better(&r[2]),
            Ordering::Less,
            "an extreme beats the middle"
        );
    }
}
