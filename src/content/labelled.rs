//! Text written as `Name; label=value; label=value`: how `--contributor` and `--funding`
//! take a contributor or a funder, and how the window's one-a-line fields hold them.

/// The name before the first `;`, then each labelled part after it, label and value
/// trimmed; empty parts (`a;;b`, a trailing `;`) are skipped. A part without `=` is the
/// error, trimmed, for the caller to name with the labels it takes.
pub(super) fn split_labelled(text: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut parts = text.split(';');
    let name = parts.next().unwrap_or_default().trim().to_string();
    let labelled = parts
        .filter(|p| !p.trim().is_empty())
        .map(|part| match part.split_once('=') {
            Some((label, value)) => Ok((label.trim().to_string(), value.trim().to_string())),
            None => Err(part.trim().to_string()),
        })
        .collect::<Result<_, _>>()?;
    Ok((name, labelled))
}

/// `name`, then `; label=value` for each part given: what [`split_labelled`] reads back.
pub(super) fn join_labelled(name: &str, parts: &[(&str, Option<&str>)]) -> String {
    let mut text = name.trim().to_string();
    for (label, value) in parts {
        if let Some(value) = value {
            text.push_str(&format!("; {label}={}", value.trim()));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_then_labelled_parts_trimmed_with_empty_parts_skipped() {
        let (name, parts) = split_labelled(" Curie, Marie ; role= Editor ;; orcid=a=b ;").unwrap();
        assert_eq!(name, "Curie, Marie");
        assert_eq!(
            parts,
            [
                ("role".to_string(), "Editor".to_string()),
                ("orcid".to_string(), "a=b".to_string())
            ]
        );
        assert_eq!(split_labelled("NSF").unwrap(), ("NSF".to_string(), vec![]));
        assert_eq!(split_labelled("NSF; 2045678 ").unwrap_err(), "2045678");
    }

    #[test]
    fn joined_parts_are_read_back_and_parts_not_given_are_left_out() {
        let text = join_labelled(" NSF ", &[("award", Some(" 1 ")), ("award-title", None)]);
        assert_eq!(text, "NSF; award=1");
        let (name, parts) = split_labelled(&text).unwrap();
        assert_eq!(
            (name.as_str(), parts),
            ("NSF", vec![("award".into(), "1".into())])
        );
    }
}
