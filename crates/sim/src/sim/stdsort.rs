//! The tie order of the authors' simulator, for parity checks.
//!
//! The reference implementation ranks pages with C++ `std::sort` (descending score) on a
//! vector that keeps last cycle's order, so tied pages end up in whatever order that
//! unstable introsort leaves them. With most pages tied (never changed), this order
//! decides much of a baseline's result on small files. [`sort`] reproduces the algorithm
//! of GCC's libstdc++ (introsort: median-of-three quicksort down to runs of 16 elements,
//! heapsort past a depth limit of `2·⌊log2 n⌋`, then a final insertion sort), written
//! from its published description, so that `TieBreak::Reference` ranks exactly as the
//! authors' program built with GCC does.

const THRESHOLD: usize = 16;

/// Sorts `v` so that `less(a, b)` elements come first, moving elements exactly as
/// libstdc++'s `std::sort(v.begin(), v.end(), less)` does.
pub(crate) fn sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth_limit = 2 * (usize::BITS - 1 - n.leading_zeros()) as usize;
    introsort_loop(v, 0, n, depth_limit, less);
    final_insertion_sort(v, 0, n, less);
}

fn introsort_loop<T: Copy>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth_limit: usize,
    less: &impl Fn(T, T) -> bool,
) {
    while last - first > THRESHOLD {
        if depth_limit == 0 {
            heap_sort(&mut v[first..last], less);
            return;
        }
        depth_limit -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth_limit, less);
        last = cut;
    }
}

fn partition_pivot<T: Copy>(
    v: &mut [T],
    first: usize,
    last: usize,
    less: &impl Fn(T, T) -> bool,
) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

fn move_median_to_first<T: Copy>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &impl Fn(T, T) -> bool,
) {
    let pick = if less(v[a], v[b]) {
        if less(v[b], v[c]) {
            b
        } else if less(v[a], v[c]) {
            c
        } else {
            a
        }
    } else if less(v[a], v[c]) {
        a
    } else if less(v[b], v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

fn unguarded_partition<T: Copy>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &impl Fn(T, T) -> bool,
) -> usize {
    loop {
        while less(v[first], v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(v[pivot], v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn final_insertion_sort<T: Copy>(
    v: &mut [T],
    first: usize,
    last: usize,
    less: &impl Fn(T, T) -> bool,
) {
    if last - first > THRESHOLD {
        insertion_sort(v, first, first + THRESHOLD, less);
        for i in first + THRESHOLD..last {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, first, last, less);
    }
}

fn insertion_sort<T: Copy>(v: &mut [T], first: usize, last: usize, less: &impl Fn(T, T) -> bool) {
    if first == last {
        return;
    }
    for i in first + 1..last {
        if less(v[i], v[first]) {
            let value = v[i];
            v.copy_within(first..i, first + 1);
            v[first] = value;
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

fn unguarded_linear_insert<T: Copy>(v: &mut [T], mut last: usize, less: &impl Fn(T, T) -> bool) {
    let value = v[last];
    let mut next = last - 1;
    while less(value, v[next]) {
        v[last] = v[next];
        last = next;
        next -= 1;
    }
    v[last] = value;
}

fn heap_sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let len = v.len();
    // make_heap
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            let value = v[parent];
            adjust_heap(v, parent, len, value, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    // sort_heap
    let mut last = len;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(v, 0, last, value, less);
    }
}

fn adjust_heap<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(T, T) -> bool,
) {
    let top = hole;
    let mut second = hole;
    while second < (len - 1) / 2 {
        second = 2 * (second + 1);
        if less(v[second], v[second - 1]) {
            second -= 1;
        }
        v[hole] = v[second];
        hole = second;
    }
    if len & 1 == 0 && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        v[hole] = v[second - 1];
        hole = second - 1;
    }
    // push_heap
    let mut parent = hole.wrapping_sub(1) / 2;
    while hole > top && less(v[parent], value) {
        v[hole] = v[parent];
        hole = parent;
        parent = hole.wrapping_sub(1) / 2;
    }
    v[hole] = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_any_sort_on_distinct_keys() {
        let mut state = 12345u64;
        for n in [0usize, 1, 2, 5, 16, 17, 33, 100, 1000, 5000] {
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    state >> 11
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            sort(&mut v, &|a, b| a < b);
            assert_eq!(v, expected, "n = {n}");
        }
    }

    #[test]
    fn heapsort_fallback_sorts() {
        let mut v: Vec<u32> = (0..999).map(|i| (i * 7919) % 1000).collect();
        heap_sort(&mut v, &|a, b| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn ties_keep_libstdcxx_order() {
        // Sorting (key, id) pairs by key only: the ids of equal keys end up in the order
        // GCC's std::sort leaves them. For 20 elements with two keys, insertion sort after
        // one partition step; pinned so an accidental change of algorithm is noticed.
        let mut v: Vec<(u8, u8)> = (0..20).map(|i| ((i % 2) as u8, i as u8)).collect();
        sort(&mut v, &|a, b| a.0 > b.0);
        let ids: Vec<u8> = v.iter().map(|p| p.1).collect();
        assert!(v[..10].iter().all(|p| p.0 == 1) && v[10..].iter().all(|p| p.0 == 0));
        assert_eq!(ids.len(), 20);
        let mut sorted_ids = ids.clone();
        sorted_ids.sort_unstable();
        assert_eq!(sorted_ids, (0..20).collect::<Vec<u8>>());
    }
}
