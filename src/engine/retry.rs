//! The retry policy: exponential backoff with full jitter, bounded attempts, a deadline, and
//! the server's `Retry-After` honoured (invariant 6).

use std::time::Duration;

use rand::Rng;

use crate::targets::{Failure, FailureClass};

/// When and how often to try again.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Backoff before the second attempt, before jitter.
    pub base: Duration,
    /// Growth of the backoff per attempt.
    pub factor: f64,
    /// Largest backoff, before jitter.
    pub cap: Duration,
    /// Attempts in all (the first included) before the job is failed.
    pub max_attempts: u32,
    /// No retry is scheduled later than this after the job was queued.
    pub deadline: Duration,
    /// Largest wait accepted from a server's `Retry-After`.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            base: Duration::from_millis(500),
            factor: 2.0,
            cap: Duration::from_secs(60),
            max_attempts: 8,
            deadline: Duration::from_secs(3600),
            retry_after_cap: Duration::from_secs(600),
        }
    }
}

/// What to do after a retryable failure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RetryDecision {
    /// Try again after this delay.
    After(Duration),
    /// The attempts are used up.
    AttemptsExhausted,
    /// The next try would start after the deadline.
    DeadlinePassed,
}

impl RetryPolicy {
    /// The backoff ceiling after `attempt` failed attempts (1-based): base * factor^(n-1),
    /// at most `cap`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let exp = self.factor.powi(attempt.saturating_sub(1).min(63) as i32);
        let secs = (self.base.as_secs_f64() * exp).min(self.cap.as_secs_f64());
        Duration::from_secs_f64(secs.max(0.0))
    }

    /// Full jitter: a uniform delay between zero and the ceiling; never shorter than what
    /// the server asked for in `Retry-After` (capped).
    pub fn delay(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        rng: &mut impl Rng,
    ) -> Duration {
        let ceiling = self.ceiling(attempt);
        let jitter = if ceiling.is_zero() {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(rng.random_range(0.0..=ceiling.as_secs_f64()))
        };
        match retry_after {
            Some(asked) => jitter.max(asked.min(self.retry_after_cap)),
            None => jitter,
        }
    }

    /// Decide after `attempts` failed attempts, with `remaining` time until the deadline.
    pub fn decide(
        &self,
        attempts: u32,
        retry_after: Option<Duration>,
        remaining: Duration,
        rng: &mut impl Rng,
    ) -> RetryDecision {
        if attempts >= self.max_attempts {
            return RetryDecision::AttemptsExhausted;
        }
        let delay = self.delay(attempts, retry_after, rng);
        if delay > remaining {
            RetryDecision::DeadlinePassed
        } else {
            RetryDecision::After(delay)
        }
    }

    /// `send` again after a failure worth another try (a busy server, a connection lost,
    /// an answer lost) under this policy's backoff, attempts and deadline, counted from
    /// now; what `send` returns otherwise is its answer. Only for what is safe to send
    /// twice (a conditional write its key decides, a read): a job's deposit is retried
    /// through the queue instead, which records each attempt.
    pub async fn retry_idempotent<T, F, Fut>(&self, mut send: F) -> Result<T, Failure>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, Failure>>,
    {
        let started = std::time::Instant::now();
        let mut failed = 0;
        loop {
            let failure = match send().await {
                Err(f)
                    if matches!(
                        f.class(),
                        FailureClass::Retry | FailureClass::RetryAmbiguous
                    ) =>
                {
                    f
                }
                done => return done,
            };
            failed += 1;
            let left = self.deadline.saturating_sub(started.elapsed());
            // Decided before waiting: the thread's generator is not held across the wait.
            let decision = self.decide(failed, failure.retry_after(), left, &mut rand::rng());
            match decision {
                RetryDecision::After(wait) => tokio::time::sleep(wait).await,
                RetryDecision::AttemptsExhausted | RetryDecision::DeadlinePassed => {
                    return Err(failure);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// What is safe to send twice is sent again after an answer lost or a busy server, not
    /// after a refusal, and not without end.
    #[tokio::test]
    async fn an_idempotent_send_is_retried_after_a_lost_answer_but_not_after_a_refusal() {
        let quick = RetryPolicy {
            base: std::time::Duration::from_millis(1),
            max_attempts: 4,
            ..RetryPolicy::default()
        };
        let tries = std::cell::Cell::new(0);
        let lost_once = quick
            .retry_idempotent(|| {
                tries.set(tries.get() + 1);
                let answer = match tries.get() {
                    1 => Err(Failure::Ambiguous {
                        status: None,
                        message: "connection closed".into(),
                    }),
                    _ => Ok("sent"),
                };
                async move { answer }
            })
            .await;
        assert_eq!((lost_once, tries.get()), (Ok("sent"), 2));

        tries.set(0);
        let refused: Result<(), Failure> = quick
            .retry_idempotent(|| {
                tries.set(tries.get() + 1);
                async {
                    Err(Failure::Rejected {
                        status: 422,
                        problems: vec![],
                    })
                }
            })
            .await;
        assert!(refused.is_err());
        assert_eq!(tries.get(), 1, "a refusal is final");

        tries.set(0);
        let always_lost: Result<(), Failure> = quick
            .retry_idempotent(|| {
                tries.set(tries.get() + 1);
                async {
                    Err(Failure::NotSent {
                        message: "connection reset".into(),
                    })
                }
            })
            .await;
        assert!(always_lost.is_err());
        assert_eq!(tries.get(), 4, "bounded");
    }

    use rand::SeedableRng;

    #[test]
    fn ceiling_doubles_from_half_a_second_up_to_the_cap() {
        let p = RetryPolicy::default();
        assert_eq!(p.ceiling(1), Duration::from_millis(500));
        assert_eq!(p.ceiling(2), Duration::from_secs(1));
        assert_eq!(p.ceiling(4), Duration::from_secs(4));
        assert_eq!(p.ceiling(20), Duration::from_secs(60));
    }

    #[test]
    fn full_jitter_stays_between_zero_and_the_ceiling_and_varies() {
        let p = RetryPolicy::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let delays: Vec<Duration> = (0..200).map(|_| p.delay(3, None, &mut rng)).collect();
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(2)));
        let distinct: std::collections::HashSet<_> = delays.iter().collect();
        assert!(distinct.len() > 100, "jitter should spread the delays");
        assert!(delays.iter().any(|d| *d < Duration::from_millis(500)));
    }

    #[test]
    fn retry_after_is_a_floor_and_is_capped() {
        let p = RetryPolicy::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert!(p.delay(1, Some(Duration::from_secs(30)), &mut rng) >= Duration::from_secs(30));
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(86_400)), &mut rng),
            Duration::from_secs(600)
        );
    }

    #[test]
    fn attempts_and_deadline_bound_the_retries() {
        let p = RetryPolicy::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert_eq!(
            p.decide(8, None, Duration::from_secs(3600), &mut rng),
            RetryDecision::AttemptsExhausted
        );
        assert_eq!(
            p.decide(
                1,
                Some(Duration::from_secs(10)),
                Duration::from_secs(5),
                &mut rng
            ),
            RetryDecision::DeadlinePassed
        );
        assert!(matches!(
            p.decide(1, None, Duration::from_secs(3600), &mut rng),
            RetryDecision::After(_)
        ));
    }
}
