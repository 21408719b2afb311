//! A hint printed after clap refuses a command line, where its refusal alone would not say
//! what was meant: a target written where the datasets go (`lodge deposit URL --all`,
//! `--target` forgotten) is refused as a clash with `--all` or as `--target` missing.

use clap::error::ErrorKind;

use super::output::shell_word;

/// The hint for clap's refusal of kind `kind` of the command line `args` (the program's
/// name first), if one helps. `saved` says whether a word is the name of a saved target.
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
    if rest
        .iter()
        .any(|a| a == "--target" || a.starts_with("--target="))
    {
        return None;
    }
    // A word that is a flag's value is not a dataset: a postgres:// URL after --db is not
    // a target written in the wrong place.
    let takes_value = |flag: &str| matches!(flag, "--db" | "--token");
    let looks_like_target = |word: &str| {
        word.contains("://") || word.starts_with("s3:") || word == "sandbox" || saved(word)
    };
    let a_flags_value = |i: usize| i > 0 && takes_value(&rest[i - 1]);
    let (i, target) = rest.iter().enumerate().find(|&(i, word)| {
        let a_dataset = !word.starts_with('-') && !a_flags_value(i);
        a_dataset && looks_like_target(word)
    })?;
    let others: Vec<String> = (rest.iter().enumerate())
        .filter(|&(j, _)| j != i)
        .map(|(_, word)| shell_word(word).into_owned())
        .collect();
    let with_target = format!("--target {}", shell_word(target));
    let command = std::iter::once(with_target)
        .chain(others)
        .collect::<Vec<_>>()
        .join(" ");
    Some(format!(
        "hint: '{target}' looks like a target, not a dataset: give it with --target, as in \
         `lodge deposit {command}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_target_written_where_the_datasets_go_is_named_with_the_command_that_means_it() {
        let hint = hint_after_refusal(
            ErrorKind::ArgumentConflict,
            &words("lodge deposit sandbox+http://127.0.0.1:8080 --all"),
            |_| false,
        );
        assert_eq!(
            hint.as_deref(),
            Some(
                "hint: 'sandbox+http://127.0.0.1:8080' looks like a target, not a dataset: \
                 give it with --target, as in `lodge deposit --target \
                 sandbox+http://127.0.0.1:8080 --all`"
            )
        );
        let saved = hint_after_refusal(
            ErrorKind::MissingRequiredArgument,
            &words("lodge deposit zenodo plot-1"),
            |name| name == "zenodo",
        );
        assert_eq!(
            saved.as_deref(),
            Some(
                "hint: 'zenodo' looks like a target, not a dataset: give it with --target, as \
                 in `lodge deposit --target zenodo plot-1`"
            )
        );
    }

    #[test]
    fn no_hint_where_the_target_is_given_or_nothing_looks_like_one() {
        let none = |kind, line: &str| hint_after_refusal(kind, &words(line), |_| false);
        let conflict = ErrorKind::ArgumentConflict;
        assert_eq!(
            none(conflict, "lodge deposit --target sandbox --all plot-1"),
            None
        );
        assert_eq!(none(conflict, "lodge deposit --all plot-1"), None);
        assert_eq!(
            none(
                conflict,
                "lodge deposit --db postgres://h/lodge --all plot-1"
            ),
            None
        );
        assert_eq!(
            none(ErrorKind::UnknownArgument, "lodge deposit sandbox --al"),
            None
        );
        assert_eq!(none(conflict, "lodge status sandbox+http://h"), None);
    }
}
