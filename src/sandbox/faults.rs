//! Fault decisions: one draw per request to the sandbox's APIs (`/blobs`, `/records`,
//! `/dois`, `/api`).
//!
//! Every decision consumes the same four numbers from the generator, whatever the
//! probabilities and the request, so that with a seed the same sequence of requests meets the
//! same sequence of faults.

use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};

use super::FaultConfig;

/// What to do to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    None,
    /// Close the connection before reading the body; no response.
    Reset,
    /// 429 with `Retry-After`.
    RateLimit {
        retry_after_secs: u64,
    },
    /// 503, nothing committed.
    FailBeforeCommit,
    /// Handle the request fully, then close the connection with no response (writes only).
    DropAfterCommit,
    /// Handle the request fully, then answer 504 as a proxy that gave up would (writes only).
    TimeoutAfterCommit,
}

pub(crate) struct Decision {
    pub latency_ms: u64,
    pub fault: Fault,
}

struct Inner {
    config: FaultConfig,
    rng: StdRng,
}

pub(crate) struct Faults {
    inner: Mutex<Inner>,
}

fn rng_for(config: &FaultConfig) -> StdRng {
    match config.seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => StdRng::from_os_rng(),
    }
}

impl Faults {
    pub fn new(config: FaultConfig) -> Self {
        Faults {
            inner: Mutex::new(Inner {
                rng: rng_for(&config),
                config,
            }),
        }
    }

    /// Replace the configuration; the generator restarts from the new seed, if any.
    pub fn set(&self, config: FaultConfig) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.rng = rng_for(&config);
        inner.config = config;
    }

    /// Decide the fate of one request; `is_write` is true for PUT and POST.
    pub fn decide(&self, is_write: bool) -> Decision {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let draws: [f64; 4] = [
            inner.rng.random(),
            inner.rng.random(),
            inner.rng.random(),
            inner.rng.random(),
        ];
        let c = &inner.config;
        let fault = if draws[0] < c.reset {
            Fault::Reset
        } else if draws[1] < c.rate_limit {
            Fault::RateLimit {
                retry_after_secs: c.retry_after_secs,
            }
        } else if draws[2] < c.fail_before_commit {
            Fault::FailBeforeCommit
        } else if is_write && draws[3] < c.drop_after_commit {
            Fault::DropAfterCommit
        } else if is_write && draws[3] < c.drop_after_commit + c.timeout_after_commit {
            // Shares the fourth draw, so adding this fault keeps seeded runs of the others.
            Fault::TimeoutAfterCommit
        } else {
            Fault::None
        };
        Decision {
            latency_ms: c.latency_ms,
            fault,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_one_always_and_zero_never() {
        let f = Faults::new(FaultConfig {
            fail_before_commit: 1.0,
            seed: Some(1),
            ..FaultConfig::default()
        });
        for _ in 0..100 {
            assert_eq!(f.decide(false).fault, Fault::FailBeforeCommit);
        }
        f.set(FaultConfig::default());
        for _ in 0..100 {
            assert_eq!(f.decide(true).fault, Fault::None);
        }
    }

    #[test]
    fn drop_after_commit_only_applies_to_writes() {
        let f = Faults::new(FaultConfig {
            drop_after_commit: 1.0,
            ..FaultConfig::default()
        });
        assert_eq!(f.decide(false).fault, Fault::None);
        assert_eq!(f.decide(true).fault, Fault::DropAfterCommit);
    }
}
