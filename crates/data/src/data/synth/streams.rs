//! The generator's random streams: one PCG stream per host and purpose (change bits,
//! promotions, weights, regimes), so that no purpose's draws move another's, and the normal and
//! log-normal draws (Box–Muller) they feed.

/// The state seed of the change bits' PCG streams (one stream per host).
pub(super) const BITS_STREAMS: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;

/// The state seed of the promotions' streams: calendars and taking part pages.
pub(super) const PROMOTION_STREAMS: u128 = 0x7072_6f6d_6f74_696f_6e73_5f73_7472_6d31;

/// The state seed of the weights' streams.
pub(super) const WEIGHT_STREAMS: u128 = 0x7765_6967_6874_735f_7374_7265_616d_7331;

/// The state seed of the regimes' streams: which pages are featured.
pub(super) const REGIME_STREAMS: u128 = 0x7265_6769_6d65_735f_7374_7265_616d_7331;

/// Host `h`'s PCG stream for one purpose (`kind`, one of the `*_STREAMS` constants): the
/// same state for every host, the host index as stream selector. Draws for weights or
/// promotions never touch the stream the change bits use.
pub(super) fn host_stream(seed: u64, kind: u128, h: usize) -> rand_pcg::Pcg64 {
    rand_pcg::Pcg64::new((u128::from(seed) << 64) ^ kind, h as u128)
}

/// Minimal normal and log-normal sampling (Box–Muller), to avoid another dependency and to
/// keep the stream of draws fixed across crate versions.
pub(super) mod rand_distr_lite {
    use rand::Rng;

    pub(crate) fn standard_normal<R: Rng>(rng: &mut R) -> f64 {
        let u1: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
        let u2: f64 = rng.gen();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    pub(crate) fn lognormal<R: Rng>(rng: &mut R, mu: f64, sigma: f64) -> f64 {
        (mu + sigma * standard_normal(rng)).exp()
    }
}
