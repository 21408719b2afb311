//! A hint printed after clap refuses a command line, where its refusal alone would not say
//! what was meant: a target written where the datasets go (`lodge deposit URL --all`,
//! `--target` forgotten) is refused as a clash with `--all` or as `--target` missing.

use clap::error::ErrorKind;

use super::output::shell_word;

/// The hint for clap's refusal of kind `kind` of the command line `args` (the program's
/// name first), if one helps. `saved` says whether a word is the name of a saved target.
/// The command it gives is the one refused with the target moved behind `--target`, its
/// other words kept (a `--db` before `deposit` too: without it the command would run on
/// another store), and no secret repeated: a token is written `TOKEN`, a password in a
/// URL left out.
pub fn hint_after_refusal(
    kind: ErrorKind,
    args: &[String],
    saved: impl Fn(&str) -> bool,
) -> Option<String> {
    if !matches!(
        kind,
        ErrorKind::ArgumentConflict | ErrorKind::MissingRequiredArgument
    ) {
        return None;
    }
    let at = args.iter().position(|a| a == "deposit")?;
    let rest = &args[at + 1..];
    // Given already; or, after `--`, every word is a dataset's and which was meant as the
    // target is anyone's guess.
    if rest
        .iter()
        .any(|a| a == "--target" || a.starts_with("--target=") || a == "--")
    {
        return None;
    }
    let a_flags_value = |i: usize| i > 0 && takes_value(&rest[i - 1]);
    let looks_like_target =
        |word: &str| word.contains("://") || word.starts_with("s3:") || saved(word);
    let (i, target) = rest.iter().enumerate().find(|&(i, word)| {
        let a_dataset = !word.starts_with('-') && !a_flags_value(i);
        a_dataset && looks_like_target(word)
    })?;
    let target = shown_url(target);
    let mut words = vec!["lodge".to_string()];
    let mut previous: Option<&str> = None;
    for (j, word) in args.iter().enumerate().skip(1) {
        if j != at + 1 + i {
            words.push(shown_word(word, previous));
        }
        if j == at {
            words.push(format!("--target {}", shell_word(&target)));
        }
        previous = Some(word);
    }
    // With the target gone, no dataset may be left to name (`lodge deposit URL`): the
    // command would be refused again for that, so it deposits all, and says so.
    let datasets_named = rest.iter().enumerate().any(|(j, word)| {
        j != i && (word == "--all" || (!word.starts_with('-') && !a_flags_value(j)))
    });
    let all = match datasets_named {
        true => "",
        false => {
            words.push("--all".into());
            " (or name the datasets in place of --all)"
        }
    };
    Some(format!(
        "hint: '{target}' looks like a target, not a dataset: give it with --target, as in \
         `{}`{all}",
        words.join(" ")
    ))
}

/// Whether `flag` takes the next word as its value.
fn takes_value(flag: &str) -> bool {
    matches!(flag, "--db" | "--db-wait" | "--token")
}

/// `word` of the refused command line as the hint repeats it, after `previous`: a token
/// as `TOKEN`, a URL without its password, quoted for a shell.
fn shown_word(word: &str, previous: Option<&str>) -> String {
    if previous == Some("--token") {
        return "TOKEN".into();
    }
    if word.starts_with("--token=") {
        return "--token=TOKEN".into();
    }
    if let Some(db) = word.strip_prefix("--db=") {
        return format!("--db={}", shell_word(&shown_url(db)));
    }
    shell_word(&shown_url(word)).into_owned()
}

/// `text` as the hint may print it: a URL with a password loses it (Lodge takes a
/// PostgreSQL password from `PGPASSWORD` or `~/.pgpass`), a target URL with a user or password
/// before its host has them masked, as Lodge's refusal of such a URL shows it.
fn shown_url(text: &str) -> String {
    if let Some((masked, _)) = crate::targets::http::credentials_in_url(text)
        && !text.starts_with("postgres")
    {
        return masked;
    }
    super::output::without_password(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    fn hint(kind: ErrorKind, line: &str) -> Option<String> {
        hint_after_refusal(kind, &words(line), |name| name == "zenodo")
    }

    #[test]
    fn a_target_written_where_the_datasets_go_is_named_with_the_command_that_means_it() {
        assert_eq!(
            hint(
                ErrorKind::ArgumentConflict,
                "lodge deposit sandbox+http://127.0.0.1:8080 --all"
            )
            .as_deref(),
            Some(
                "hint: 'sandbox+http://127.0.0.1:8080' looks like a target, not a dataset: \
                 give it with --target, as in `lodge deposit --target \
                 sandbox+http://127.0.0.1:8080 --all`"
            )
        );
        assert_eq!(
            hint(
                ErrorKind::MissingRequiredArgument,
                "lodge deposit zenodo plot-1"
            )
            .as_deref(),
            Some(
                "hint: 'zenodo' looks like a target, not a dataset: give it with --target, as \
                 in `lodge deposit --target zenodo plot-1`"
            )
        );
    }

    #[test]
    fn a_target_given_alone_is_hinted_with_all_its_datasets_so_the_command_runs() {
        assert_eq!(
            hint(
                ErrorKind::MissingRequiredArgument,
                "lodge deposit sandbox+http://127.0.0.1:8080 --token s3cret"
            )
            .as_deref(),
            Some(
                "hint: 'sandbox+http://127.0.0.1:8080' looks like a target, not a dataset: \
                 give it with --target, as in `lodge deposit --target \
                 sandbox+http://127.0.0.1:8080 --token TOKEN --all` (or name the datasets in \
                 place of --all)"
            )
        );
    }

    #[test]
    fn the_command_hinted_keeps_its_database_and_repeats_no_secret() {
        let said = hint(
            ErrorKind::ArgumentConflict,
            "lodge --db postgres://lab:pgpass@db.example.org/lodge deposit zenodo --all \
             --token s3cret",
        )
        .unwrap();
        assert!(
            said.ends_with(
                "`lodge --db postgres://lab@db.example.org/lodge deposit --target zenodo --all \
                 --token TOKEN`"
            ),
            "{said}"
        );
        let said = hint(
            ErrorKind::ArgumentConflict,
            "lodge deposit webdav+https://alice:hunter2@dav.example.org/lab --all --token=s3cret",
        )
        .unwrap();
        assert!(
            !said.contains("hunter2") && !said.contains("s3cret"),
            "{said}"
        );
        assert!(
            said.contains("--target 'webdav+https://…@dav.example.org/lab' --all --token=TOKEN"),
            "{said}"
        );
    }

    #[test]
    fn no_hint_where_the_target_is_given_or_nothing_looks_like_one() {
        let conflict = ErrorKind::ArgumentConflict;
        for line in [
            "lodge deposit --target zenodo --all plot-1",
            "lodge deposit --all plot-1",
            "lodge deposit --db postgres://h/lodge --all plot-1",
            // Not a saved target's name.
            "lodge deposit sandbox plot-1",
            // After `--`, every word is a dataset's.
            "lodge deposit -- zenodo --all",
            "lodge status sandbox+http://h",
        ] {
            assert_eq!(hint(conflict, line), None, "{line}");
        }
        assert_eq!(
            hint(ErrorKind::UnknownArgument, "lodge deposit zenodo --al"),
            None
        );
    }
}
