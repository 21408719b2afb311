//! The conformance suite: the same cases against every target kind, each on a real server on
//! loopback — Lodge's sandbox, S3 (moto) and WebDAV (wsgidav) — reached through a
//! fault-injecting proxy. The servers come from `.venv` (scripts/install/target-servers.sh);
//! a missing one fails the run.

#[path = "../support/mod.rs"]
mod support;

mod cases;
mod env;

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod sandbox {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    crate::cases::$case(crate::env::Kind::Sandbox).await
                }
            )*
        }
        mod s3 {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    crate::cases::$case(crate::env::Kind::S3).await
                }
            )*
        }
        mod webdav {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    crate::cases::$case(crate::env::Kind::WebDav).await
                }
            )*
        }
    };
}

conformance!(
    create,
    replay_makes_no_request,
    response_lost_after_commit_gives_the_original_identifier,
    eight_concurrent_deposits_make_one_record,
    same_key_on_another_target_is_independent,
    large_file_deposits_and_verifies,
    killed_mid_upload_resumes_without_resending_blobs,
    wrong_credentials_pause_the_target_without_a_loop,
    validation_error_is_terminal,
);
