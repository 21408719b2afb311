//! Locations (where the data were collected, or what places they are about): given with
//! `lodge add --location "Lake Zurich; lat=47.27; lon=8.65"` (or a `box=`) or read from a
//! `.zenodo.json`'s `locations`, shown by `lodge show`, part of the content key, and sent to
//! DataCite as `geoLocations` and to InvenioRDM as GeoJSON `locations`. One that cannot be
//! read is refused before anything is added; a point or box out of range, or half a point,
//! is a metadata problem naming the flag, and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn locations_given_on_the_command_line_are_shown_keyed_and_reach_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let locations = [
        "--location",
        "Lake Zurich; lat=47.27; lon=8.65",
        "--location",
        "box=5.9,45.8,10.5,47.8",
        "--location",
        // Across the 180th meridian: its west bound east of its east bound.
        "Fiji; box=177,-19,-179,-16",
    ];
    let located = key_in(&added_titled_with(&lab, &folder, "Cores", &locations));
    assert_ne!(located, plain, "locations are part of the key");
    let respelt = [
        "--location",
        " Lake Zurich ;lon=8.650; lat=+47.270",
        "--location",
        "box= 5.90, 45.8, 10.5, 47.80",
        "--location",
        "Fiji; box=177.0,-19,-179,-16.0",
    ];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &respelt)),
        located,
        "one key however the numbers are written"
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "locations    Lake Zurich; lat=47.27; lon=8.65",
            "             box=5.9,45.8,10.5,47.8",
            "             Fiji; box=177,-19,-179,-16",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["locations"],
        json!({"features": [
            {"place": "Lake Zurich", "geometry": {"type": "Point", "coordinates": [8.65, 47.27]}},
            {"geometry": {"type": "Polygon", "coordinates": [[
                [5.9, 45.8], [10.5, 45.8], [10.5, 47.8], [5.9, 47.8], [5.9, 45.8]]]}},
            {"place": "Fiji", "geometry": {"type": "MultiPolygon", "coordinates": [
                [[[177.0, -19.0], [180.0, -19.0], [180.0, -16.0], [177.0, -16.0], [177.0, -19.0]]],
                [[[-180.0, -19.0], [-179.0, -19.0], [-179.0, -16.0], [-180.0, -16.0], [-180.0, -19.0]]],
            ]}},
        ]})
    );
    assert_eq!(
        attributes["geoLocations"],
        json!([
            {"geoLocationPlace": "Lake Zurich",
             "geoLocationPoint": {"pointLatitude": 47.27, "pointLongitude": 8.65}},
            {"geoLocationBox": {"westBoundLongitude": 5.9, "eastBoundLongitude": 10.5,
                                "southBoundLatitude": 45.8, "northBoundLatitude": 47.8}},
            {"geoLocationPlace": "Fiji",
             "geoLocationBox": {"westBoundLongitude": 177.0, "eastBoundLongitude": -179.0,
                                "southBoundLatitude": -19.0, "northBoundLatitude": -16.0}},
        ])
    );

    // `--location ""` takes them away: the key is the plain one again.
    let cleared = ["--location", ""];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &cleared)),
        plain
    );
}

/// A `--location` with a part that is not one of its own is refused before anything is
/// added; a point out of range, half a point, a decimal comma or a box upside down is a
/// metadata problem naming the flag, and a deposit sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_location_that_cannot_be_sent_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--location", "Zurich; 47.27, 8.65"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "--location 'Zurich; 47.27, 8.65': '47.27, 8.65' should be lat=LATITUDE, \
           lon=LONGITUDE or box=WEST,SOUTH,EAST,NORTH",
        ],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added");

    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--location",
            "Zurich; lat=8.65; lon=200",
            "--location",
            "Zurich; lat=47.27",
            "--location",
            "Zurich; lat=47,27; lon=8,65",
            "--location",
            "Alps; box=5.9,47.8,10.5,45.8",
        ],
    );
    assert_all(
        &text(&out),
        &[
            "locations[0]: longitude 200 is outside -180 to 180 degrees (--location \"Lake \
             Zurich; lat=47.27; lon=8.65\")",
            "locations[1]: 'Zurich; lat=47.27' gives half a point: give both its lat= and its \
             lon=",
            "locations[2]: '47,27' is not a latitude: write decimal degrees with a point \
             (47.27) (--location \"Zurich; lat=47.27; lon=8.65\")",
            "locations[3]: box '5.9,47.8,10.5,45.8' has its south bound (47.8) north of its \
             north bound (45.8)",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s locations (a place, with its point where given) are read into the
/// dataset's, and no longer named among what the file gives that Lodge does not send.
#[test]
fn zenodo_json_locations_prefill_the_locations() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "surveyed",
        r#""locations": [{"place": "Lake Zurich", "lat": 47.27, "lon": 8.65},
                         {"place": "Disko Bay"}],
           "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("locations"), "{said}");
    assert_all(
        &shown,
        &[
            "locations    Lake Zurich; lat=47.27; lon=8.65",
            "             Disko Bay",
        ],
    );
}
