//! Shards of a study: a deterministic subset of its units (`--shard i/n`), and the shard
//! of a Slurm array task (`--shard auto`).

/// A deterministic subset of the units: those whose index modulo `count` is `index`.
///
/// **Invariant:** `index < count` (so `count >= 1`); built by [`Shard::new`] or parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// All units.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`; `None` unless `index < count`.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// This shard, `0..count`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Number of shards.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether unit number `i` belongs to this shard.
    pub(crate) fn holds(&self, i: usize) -> bool {
        i % self.count == self.index
    }

    /// The shard of a Slurm array task, from the variables Slurm sets in its environment
    /// (`env` looks one up): shard `(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
    /// SLURM_ARRAY_TASK_STEP` of `SLURM_ARRAY_TASK_COUNT`. Any range works
    /// (`--array=0-7`, `--array=1-8`, `--array=0-14:2`, with or without a `%` limit); a list
    /// of ids that is not a range (`--array=1,4,5`) is refused, since its tasks would not
    /// cover every shard.
    pub fn from_slurm(env: impl Fn(&str) -> Option<String>) -> Result<Shard, SlurmError> {
        let var = |name: &'static str| -> Result<Option<usize>, SlurmError> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| SlurmError::NotANumber { name, value: v }),
            }
        };
        let need = |name: &'static str| -> Result<usize, SlurmError> {
            var(name)?.ok_or(SlurmError::Unset { name })
        };
        let id = need("SLURM_ARRAY_TASK_ID")?;
        let count = need("SLURM_ARRAY_TASK_COUNT")?;
        let min = var("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = var("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        let max = var("SLURM_ARRAY_TASK_MAX")?.unwrap_or(min + (count.max(1) - 1) * step);
        let is_range = count >= 1 && max >= min && (max - min) / step + 1 == count;
        let not_a_range = SlurmError::NotARange {
            id,
            count,
            min,
            max,
            step,
        };
        if !is_range || id < min || id > max || (id - min) % step != 0 {
            return Err(not_a_range);
        }
        Shard::new((id - min) / step, count).ok_or(not_a_range)
    }
}

/// Why the shard of a Slurm array task cannot be known (`--shard auto`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlurmError {
    /// A variable Slurm sets in an array task is not set: not such a task.
    #[error(
        "{name} is not set: `--shard auto` runs inside a Slurm array job (sbatch --array=0-N); \
         elsewhere give --shard i/n"
    )]
    Unset {
        /// The variable.
        name: &'static str,
    },
    /// A variable that is not a non-negative integer.
    #[error("{name}={value:?} is not a non-negative integer")]
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The array's task ids are not a range, so its tasks would not cover every shard.
    #[error(
        "the Slurm array (SLURM_ARRAY_TASK_ID={id}, COUNT={count}, MIN={min}, MAX={max}, \
         STEP={step}) is not a range of task ids: use --array=0-{last} (a list of ids would \
         leave shards unrun)",
        last = count.max(&1) - 1
    )]
    NotARange {
        /// The task's id.
        id: usize,
        /// Tasks in the array.
        count: usize,
        /// The first id.
        min: usize,
        /// The last id.
        max: usize,
        /// The ids' step.
        step: usize,
    },
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `i/n` with `0 <= i < n`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}`: expected i/n with 0 <= i < n, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        Shard::new(index, count).ok_or_else(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_arrays_give_shards() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let shard = |vars| Shard::from_slurm(env(vars)).map(|s| (s.index(), s.count()));
        // --array=0-7: task 3.
        assert_eq!(
            shard(&[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "8"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_STEP", "1"),
            ]),
            Ok((3, 8))
        );
        // --array=1-8: ids start at 1.
        assert_eq!(
            shard(&[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "8"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "8"),
            ]),
            Ok((0, 8))
        );
        // --array=0-14:2: eight tasks 0, 2, ..., 14.
        assert_eq!(
            shard(&[
                ("SLURM_ARRAY_TASK_ID", "14"),
                ("SLURM_ARRAY_TASK_COUNT", "8"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_MAX", "14"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
            ]),
            Ok((7, 8))
        );
        // Only the two required variables: ids 0..count.
        assert_eq!(
            shard(&[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]),
            Ok((2, 4))
        );
        // --array=1,4,5: not a range.
        let list = shard(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "5"),
        ]);
        assert!(matches!(list, Err(SlurmError::NotARange { .. })));
        assert!(list.unwrap_err().to_string().contains("not a range"));
        let outside = shard(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(outside.unwrap_err().to_string().contains("--array=0-3"));
        assert_eq!(
            shard(&[]),
            Err(SlurmError::Unset {
                name: "SLURM_ARRAY_TASK_ID"
            })
        );
        assert!(shard(&[])
            .unwrap_err()
            .to_string()
            .contains("SLURM_ARRAY_TASK_ID is not set"));
        let garbled = shard(&[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(garbled
            .unwrap_err()
            .to_string()
            .contains("SLURM_ARRAY_TASK_ID=\"x\""));
    }
}
