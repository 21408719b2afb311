//! How to cite a deposited dataset, in the form DataCite recommends:
//! `Creator (PublicationYear): Title. Version. Publisher. ResourceType. Identifier`, the
//! identifier as a link (a DOI as `https://doi.org/...`, unless it is a test system's). For a
//! paper's reference list or its data availability statement.

use super::Metadata;

/// The citation of a record with `identifier` (and `url`, where the repository gave one)
/// holding a dataset with this metadata.
pub fn citation(metadata: &Metadata, identifier: &str, url: Option<&str>) -> String {
    let m = metadata.normalized();
    let creators: Vec<&str> = m.creators.iter().map(|c| c.name.as_str()).collect();
    let year = m
        .publication_year
        .map(|y| y.to_string())
        .unwrap_or_else(|| "n.d.".into());
    let mut parts = vec![format!("{} ({year}): {}", creators.join("; "), m.title)];
    if let Some(version) = &m.version {
        parts.push(format!("Version {version}"));
    }
    parts.push(m.publisher.clone());
    parts.push(m.resource_type.clone());
    let mut text = parts
        .iter()
        .map(|p| p.trim_end_matches('.'))
        .collect::<Vec<_>>()
        .join(". ");
    text.push_str(". ");
    text.push_str(&link(identifier, url));
    text
}

/// The record as a link: a DOI resolves through doi.org; anything else by the URL the
/// repository gave, or as it is. So does a DOI of a test system (DataCite's, or the local
/// sandbox's emulation): doi.org never learns of it, and its own link is the one that works.
fn link(identifier: &str, url: Option<&str>) -> String {
    let doi = identifier
        .strip_prefix("https://doi.org/")
        .or_else(|| identifier.strip_prefix("doi:"))
        .unwrap_or(identifier);
    match url {
        Some(url) if is_test_system(url) => url.to_string(),
        _ if doi.starts_with("10.") && doi.contains('/') => format!("https://doi.org/{doi}"),
        url => url.unwrap_or(identifier).to_string(),
    }
}

/// Whether `url` is on a system whose DOIs resolve nowhere but there: DataCite's test
/// system, or a server on this computer (the sandbox).
fn is_test_system(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(host)) => {
            host.ends_with(".test.datacite.org") || host == "localhost"
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Creator;

    fn metadata() -> Metadata {
        Metadata {
            title: "Soil cores 2026".into(),
            creators: vec![Creator::named("Curie, Marie"), Creator::named("Lodge Lab")],
            publication_year: Some(2026),
            publisher: "Soil lab".into(),
            version: Some("1.0".into()),
            ..Metadata::default()
        }
    }

    #[test]
    fn a_doi_is_cited_as_its_doi_org_link() {
        assert_eq!(
            citation(
                &metadata(),
                "10.80000/abcd-ef12",
                Some("https://lab.example/r/1")
            ),
            "Curie, Marie; Lodge Lab (2026): Soil cores 2026. Version 1.0. Soil lab. Dataset. \
             https://doi.org/10.80000/abcd-ef12"
        );
    }

    /// doi.org knows only the DOIs of DataCite's production system. A DOI of its test
    /// system, or of the sandbox's emulation, is cited by the link that shows it.
    #[test]
    fn a_test_systems_doi_is_cited_by_its_own_link_not_doi_org() {
        for url in [
            "https://handle.test.datacite.org/10.80000/abcd-ef12",
            "https://doi.test.datacite.org/dois/10.80000%2Fabcd-ef12",
            "http://127.0.0.1:8080/dois/10.80000/abcd-ef12",
            "http://localhost:8080/dois/10.80000/abcd-ef12",
            "http://[::1]:8080/dois/10.80000/abcd-ef12",
        ] {
            let cited = citation(&metadata(), "10.80000/abcd-ef12", Some(url));
            assert!(cited.ends_with(&format!("Dataset. {url}")), "{cited}");
        }
        // A production draft is cited as the DOI it resolves as once published.
        let draft = citation(
            &metadata(),
            "10.80000/abcd-ef12",
            Some("https://doi.datacite.org/dois/10.80000%2Fabcd-ef12"),
        );
        assert!(
            draft.ends_with(". https://doi.org/10.80000/abcd-ef12"),
            "{draft}"
        );
    }

    #[test]
    fn another_identifier_is_cited_by_the_records_url() {
        let m = Metadata {
            version: None,
            title: "Cores.".into(),
            ..metadata()
        };
        assert_eq!(
            citation(&m, "sbx-000001", Some("http://127.0.0.1:8080/records/abc")),
            "Curie, Marie; Lodge Lab (2026): Cores. Soil lab. Dataset. \
             http://127.0.0.1:8080/records/abc"
        );
        assert!(citation(&m, "sbx-000001", None).ends_with(". sbx-000001"));
    }
}
