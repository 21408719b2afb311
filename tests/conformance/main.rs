//! The conformance suite: the same cases against every target kind, each on a real server on
//! loopback — Lodge's sandbox, S3 (moto) and WebDAV (wsgidav) in both their layouts (files
//! by digest, and `?layout=folders`), and the sandbox's InvenioRDM
//! (publishing, and leaving drafts with `state=draft`) and DataCite emulations — reached
//! through a fault-injecting proxy. DataCite holds metadata
//! only, so the two cases about files run against the other four. The servers come from `.venv` (scripts/install/target-servers.sh);
//! a missing one fails the run.

#[path = "../support/mod.rs"]
mod support;

mod cases;
mod env;

macro_rules! conformance {
    (files: $($fcase:ident),* ; all: $($case:ident),* $(,)?) => {
        conformance!(@kind sandbox Sandbox: $($fcase,)* $($case),*);
        conformance!(@kind s3 S3: $($fcase,)* $($case),*);
        conformance!(@kind s3_folders S3Folders: $($fcase,)* $($case),*);
        conformance!(@kind webdav WebDav: $($fcase,)* $($case),*);
        conformance!(@kind webdav_folders WebDavFolders: $($fcase,)* $($case),*);
        conformance!(@kind invenio Invenio: $($fcase,)* $($case),*);
        conformance!(@kind invenio_drafts InvenioDrafts: $($fcase,)* $($case),*);
        // DataCite holds metadata only: the cases about files do not apply.
        conformance!(@kind datacite DataCite: $($case),*);
    };
    (@kind $module:ident $kind:ident: $($case:ident),*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    crate::cases::$case(crate::env::Kind::$kind).await
                }
            )*
        }
    };
}

conformance!(
    files:
    large_file_deposits_and_verifies,
    empty_file_deposits_and_reads_back_empty,
    killed_mid_upload_resumes_without_resending_blobs,
    an_attempts_files_that_went_through_are_not_sent_again,
    verify_names_a_lost_file_and_bytes_changed_in_place,
    repair_puts_back_a_lost_file_and_leaves_the_record_alone,
    repair_does_not_overwrite_other_bytes_under_a_files_name,
    a_file_refused_as_too_large_is_named_in_the_refusal;
    all:
    create,
    verify_finds_a_fresh_deposit_intact,
    verify_finds_a_record_gone_or_replaced,
    a_files_address_is_where_the_target_keeps_it,
    a_deleted_record_is_written_again_by_repair_only_where_its_key_names_it,
    replay_makes_no_request,
    response_lost_after_commit_gives_the_original_identifier,
    eight_concurrent_deposits_make_one_record,
    a_first_batch_sent_at_once_lands_each_deposit_on_its_first_attempt,
    same_key_on_another_target_is_independent,
    wrong_credentials_pause_the_target_without_a_loop,
    validation_error_is_terminal,
    the_record_link_a_browser_opens_shows_the_record,
);

/// With `?layout=folders`, S3 and WebDAV keep each dataset's files in a folder of its own,
/// under their own names.
mod folders_layout {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn s3_keeps_each_file_under_its_own_name_in_the_datasets_folder() {
        crate::cases::each_file_is_kept_under_its_own_name_in_the_datasets_folder(
            crate::env::Kind::S3Folders,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn webdav_keeps_each_file_under_its_own_name_in_the_datasets_folder() {
        crate::cases::each_file_is_kept_under_its_own_name_in_the_datasets_folder(
            crate::env::Kind::WebDavFolders,
        )
        .await
    }
}

/// S3 and WebDAV in each layout, on a prefix or folder the other layout deposited to
/// first: the two layouts' deposits of one key are two deposits, each whole.
mod both_layouts {
    macro_rules! after_the_other_layout {
        ($($name:ident $kind:ident),*) => {$(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                crate::cases::a_deposit_in_the_other_layout_of_the_prefix_is_not_taken_for_this_ones(
                    crate::env::Kind::$kind,
                )
                .await
            }
        )*};
    }
    after_the_other_layout!(
        s3_by_digest S3,
        s3_in_folders S3Folders,
        webdav_by_digest WebDav,
        webdav_in_folders WebDavFolders
    );
}

/// S3 and WebDAV folders-layout deposits recorded where records were kept before the two
/// layouts kept theirs apart (2026-12-07).
mod records_kept_before {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn s3_in_folders() {
        crate::cases::a_folders_deposit_recorded_where_records_were_kept_before_checks_whole(
            crate::env::Kind::S3Folders,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn webdav_in_folders() {
        crate::cases::a_folders_deposit_recorded_where_records_were_kept_before_checks_whole(
            crate::env::Kind::WebDavFolders,
        )
        .await
    }
}

/// S3 behind a server that checks every signature, as AWS does: file names and a prefix
/// with punctuation reach object keys in the folders layout, and are signed as the server
/// reads them.
mod s3_signatures {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn file_names_with_punctuation_are_signed_as_the_server_reads_them() {
        crate::cases::file_names_with_punctuation_are_signed_as_the_server_reads_them().await
    }
}

/// WebDAV and S3 in the folders layout, behind a server that ignores case in names.
mod ignoring_case {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn webdav_files_differing_only_in_case_are_refused() {
        crate::cases::files_differing_only_in_case_on_a_server_that_ignores_case_are_refused(
            crate::env::Kind::WebDavFolders,
        )
        .await
    }
}

/// S3 writes conditionally and keeps whole objects: what is under a digest's name stays.
mod s3_whole_objects {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_repair_stopped_by_a_file_of_another_size_says_what_it_sent_before() {
        crate::cases::a_repair_stopped_by_a_file_of_another_size_says_what_it_sent_before(
            crate::env::Kind::S3,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_blob_of_another_size_under_a_files_digest_is_refused_not_taken() {
        crate::cases::a_blob_of_another_size_under_a_files_digest_is_refused_not_taken(
            crate::env::Kind::S3,
        )
        .await
    }
}

/// S3 tells a deleted bucket from lost objects, in both layouts.
mod s3_bucket_gone {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_deleted_bucket_is_named_by_verify_not_taken_for_lost_files() {
        crate::cases::a_deleted_bucket_is_named_by_verify_not_taken_for_lost_files(
            crate::env::Kind::S3,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn in_the_folders_layout_too() {
        crate::cases::a_deleted_bucket_is_named_by_verify_not_taken_for_lost_files(
            crate::env::Kind::S3Folders,
        )
        .await
    }
}

/// S3's multipart uploads: one left open by a killed process, or by a deposit stopped
/// midway, does not stay open for good.
mod s3_multipart {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn an_upload_left_open_by_a_killed_process_is_aborted_once_the_blob_lands() {
        crate::cases::an_upload_left_open_by_a_killed_process_is_aborted_once_the_blob_lands(
            crate::env::Kind::S3,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn an_upload_begun_by_a_stopped_deposit_is_aborted() {
        crate::cases::an_upload_begun_by_a_stopped_deposit_is_aborted(crate::env::Kind::S3).await
    }
}

/// Servers that write a PUT's body as it arrives keep part of a file when an upload is cut
/// off; S3, the sandbox and InvenioRDM keep a whole file or none. WebDAV in both layouts.
macro_rules! partial_writes {
    ($($module:ident $kind:ident),*) => {
        $(
            mod $module {
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn a_file_cut_off_by_an_interrupted_upload_is_sent_again_whole() {
                    crate::cases::a_file_cut_off_by_an_interrupted_upload_is_sent_again_whole(
                        crate::env::Kind::$kind,
                    )
                    .await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn a_file_still_arriving_from_another_upload_is_left_to_it() {
                    crate::cases::a_file_still_arriving_from_another_upload_is_left_to_it(
                        crate::env::Kind::$kind,
                    )
                    .await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn repair_replaces_a_file_left_short_by_a_cut_off_upload() {
                    crate::cases::repair_replaces_a_file_left_short_by_a_cut_off_upload(
                        crate::env::Kind::$kind,
                    )
                    .await
                }
            }
        )*
    };
}

partial_writes!(webdav_partial_writes WebDav, webdav_folders_partial_writes WebDavFolders);

/// The targets that keep each file apart send (and read back) as many of a deposit's files
/// at once as they are set to: four by default, one after another when set to 1, more when
/// set higher. InvenioRDM sends one at a time (three requests a file, against a rate limit).
macro_rules! files_at_once {
    ($($module:ident $kind:ident),*) => {
        mod files_at_once {
            $(
                mod $module {
                    use lodge::targets::each_file::FilesAtOnce;

                    async fn set_to(at_once: FilesAtOnce) {
                        crate::cases::a_datasets_files_go_out_as_many_at_once_as_set(
                            crate::env::Kind::$kind,
                            at_once,
                        )
                        .await
                    }

                    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                    async fn four_by_default() {
                        set_to(FilesAtOnce::DEFAULT).await
                    }

                    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                    async fn one_at_a_time() {
                        set_to(FilesAtOnce::new(1).unwrap()).await
                    }

                    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                    async fn six_at_a_time() {
                        set_to(FilesAtOnce::new(6).unwrap()).await
                    }
                }
            )*
        }
    };
}

files_at_once!(sandbox Sandbox, s3 S3, s3_folders S3Folders, webdav WebDav, webdav_folders WebDavFolders);
