//! Datasets whose metadata a deposit would refuse, said once per set of problems: each with
//! its problems and the `lodge add` that fixes them, and many with the same problems (a
//! batch added without titles, say) as one block rather than a screenful of the same lines.

use super::defaults::defaults_hint;
use super::output::say;
use super::output::shell_word;

/// A dataset and what its metadata lacks.
pub(super) struct Incomplete {
    pub name: String,
    pub path: String,
    pub problems: Vec<String>,
    /// What `lodge add --defaults` would fill from the window's Settings (empty when they
    /// would not help).
    pub defaults_fill: Vec<&'static str>,
    /// Why the folder's citation file (`CITATION.cff`, `.zenodo.json`) filled nothing: it
    /// is there but cannot be read. Said, as the fix may be the file's rather than flags.
    pub citation_error: Option<String>,
    /// On a shared store, the dataset's number and the other machine it was added on: its
    /// folder is there, and a `lodge add` of the same path here would change this
    /// machine's dataset of that path (or make one), not it.
    pub added_elsewhere: Option<(i64, String)>,
}

impl Incomplete {
    /// Why the citation file in `folder` filled nothing, when one is there and cannot be
    /// read; `None` when there is none, it reads, or the folder is gone.
    pub fn citation_error_in(folder: &std::path::Path) -> Option<String> {
        crate::content::metadata_from_folder(folder)
            .err()
            .map(|e| e.to_string())
    }
}

/// More datasets than this with the same problems are listed together (the README's
/// "once for all that lack the same": two already are).
const ONE_BY_ONE: usize = 1;

/// Print `items`, grouped by their problems in the order first met. `one(name)` heads a
/// dataset shown on its own, `many(count, names)` a group.
pub(super) fn print_incomplete(
    items: &[Incomplete],
    one: &dyn Fn(&str) -> String,
    many: &dyn Fn(usize, &str) -> String,
) {
    let mut groups: Vec<(&Vec<String>, Vec<&Incomplete>)> = Vec::new();
    for item in items {
        match groups.iter_mut().find(|(p, _)| **p == item.problems) {
            Some((_, members)) => members.push(item),
            None => groups.push((&item.problems, vec![item])),
        }
    }
    let print_problems = |problems: &[String]| {
        for p in problems {
            say!("           {p}");
        }
    };
    let say_citation_errors = |members: &[&Incomplete]| {
        for e in members.iter().filter_map(|d| d.citation_error.as_deref()) {
            say!("           {e}");
        }
    };
    // A folder gone (moved, deleted) cannot be added where it was: it is added where it is
    // now, which takes the dataset's metadata with it.
    let gone = |d: &Incomplete| !std::path::Path::new(&d.path).is_dir();
    let say_gone = |gone: &[&Incomplete]| {
        if gone.is_empty() {
            return;
        }
        let folders: Vec<&str> = gone.iter().map(|d| d.path.as_str()).collect();
        say!(
            "           {} gone: `lodge add` {} where {} now, with the flags named above (it \
             takes {} metadata with it)",
            match folders.len() {
                1 => format!("its folder {} is", folders[0]),
                _ => format!("the folders {} are", folders.join(", ")),
            },
            if folders.len() == 1 { "it" } else { "each" },
            if folders.len() == 1 {
                "it is"
            } else {
                "they are"
            },
            if folders.len() == 1 {
                "the dataset's"
            } else {
                "its dataset's"
            },
        );
    };
    let say_elsewhere = |d: &Incomplete| {
        if let Some((id, machine)) = &d.added_elsewhere {
            say!(
                "           dataset {id} was added on {machine}, where its folder is: fix it \
                 there, with `lodge add {}` and the flags named above on {machine} (run here, \
                 it would change this machine's own dataset of that folder, or add one)",
                shell_word(&d.path)
            );
        }
    };
    for (problems, members) in groups {
        if members.len() <= ONE_BY_ONE {
            for d in members {
                say!("{}", one(&d.name));
                print_problems(problems);
                say_citation_errors(&[d]);
                if d.added_elsewhere.is_some() {
                    say_elsewhere(d);
                } else if gone(d) {
                    say_gone(&[d]);
                } else {
                    say!(
                        "           fix with `lodge add {}` and the flags named above",
                        shell_word(&d.path)
                    );
                }
                if let Some(hint) = defaults_hint(&d.defaults_fill, &shell_word(&d.path)) {
                    say!("           {hint}");
                }
            }
            continue;
        }
        let names: Vec<&str> = members.iter().map(|d| d.name.as_str()).collect();
        say!("{}", many(members.len(), &names.join(", ")));
        print_problems(problems);
        say_citation_errors(&members);
        let (elsewhere, members): (Vec<&Incomplete>, Vec<&Incomplete>) = members
            .iter()
            .copied()
            .partition(|d| d.added_elsewhere.is_some());
        let (away, here): (Vec<&Incomplete>, Vec<&Incomplete>) =
            members.iter().copied().partition(|d| gone(d));
        let folders: Vec<String> = here.iter().map(|d| shell_word(&d.path).into()).collect();
        if !folders.is_empty() {
            say!(
                "           fix with `lodge add {}` and the flags named above ({{folder}} in \
                 --title becomes each folder's name)",
                folders.join(" ")
            );
        }
        say_gone(&away);
        elsewhere.iter().for_each(|d| say_elsewhere(d));
        // The folders here, as the fix above names them (a folder gone or on another
        // machine is added where it is, as said of it).
        let folders = match folders.is_empty() {
            true => "FOLDER".to_string(),
            false => folders.join(" "),
        };
        if let Some(hint) = members
            .first()
            .or(elsewhere.first())
            .and_then(|d| defaults_hint(&d.defaults_fill, &folders))
        {
            say!("           {hint}");
        }
    }
}
