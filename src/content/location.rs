//! Where the data were collected, or what place they are about: a place's name, a point
//! (latitude and longitude) or a box (its west, south, east and north bounds), in decimal
//! degrees (WGS 84). The targets send them as DataCite's `geoLocations` and InvenioRDM's
//! `locations` (GeoJSON). Like all metadata they take part in the content key, each number
//! in one spelling (`47.270` is `47.27`); a dataset with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::labelled::{join_labelled, line_break_problem, read_labelled, unread_line_problem};

/// How a location is written on the command line and in the window.
pub const EXAMPLE: &str = "Lake Zurich; lat=47.27; lon=8.65";

/// How a box is written: its bounds in the order of GeoJSON's bounding boxes.
const BOX_FORM: &str = "WEST,SOUTH,EAST,NORTH";

/// One location of the dataset: a place's name, a point, a box, or several of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The place's name: `Lake Zurich`, `Station 4, Disko Bay`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub place: String,
    /// A point's latitude in decimal degrees, -90 to 90 (north positive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latitude: Option<String>,
    /// A point's longitude in decimal degrees, -180 to 180 (east positive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longitude: Option<String>,
    /// A box as `WEST,SOUTH,EAST,NORTH` in decimal degrees (a box across the 180th meridian
    /// has its west bound east of its east bound).
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub bbox: Option<String>,
}

/// A box's bounds, read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoBox {
    pub west: f64,
    pub south: f64,
    pub east: f64,
    pub north: f64,
}

/// A number of degrees as keyed: the shortest decimal that reads back as the same number
/// (`+47.270` is `47.27`, `-0` is `0`); text that is not a finite number is kept (trimmed)
/// for [`Location::problem`] to name.
fn degrees(text: &str) -> String {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v == 0.0 => "0".to_string(),
        Ok(v) if v.is_finite() => v.to_string(),
        _ => text.to_string(),
    }
}

/// `text` read as a finite number, and only as one (no `inf` or `NaN`).
fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Why `text` is not a number of degrees from `-limit` to `limit` (a `what`); `None` when
/// it is.
fn degrees_problem(text: &str, what: &str, limit: f64) -> Option<String> {
    match number(text) {
        None if text.contains(',') && number(&text.replace(',', ".")).is_some() => Some(format!(
            "'{text}' is not a {what}: write decimal degrees with a point ({})",
            text.replace(',', ".")
        )),
        None => Some(format!(
            "'{text}' is not a {what}: write decimal degrees, e.g. 47.27"
        )),
        Some(v) if v.abs() > limit => Some(format!(
            "{what} {text} is outside -{limit} to {limit} degrees"
        )),
        Some(_) => None,
    }
}

impl Location {
    /// `"Lake Zurich; lat=47.27; lon=8.65"` or `"Alps; box=5.9,45.8,10.5,47.8"`: the place's
    /// name, then, after semicolons, a point's `lat=` and `lon=` and a `box=`, each optional
    /// (`lat=47.27; lon=8.65` alone is a point with no name). Whether the result can be sent
    /// is [`Location::problem`]'s to say; only a text that cannot be read is refused here.
    pub fn parse(text: &str) -> Result<Location, String> {
        let labels = [("lat", "LATITUDE"), ("lon", "LONGITUDE"), ("box", BOX_FORM)];
        // No name: the text begins with a part of its own.
        let unnamed = labels
            .iter()
            .any(|(label, _)| text.trim_start().starts_with(&format!("{label}=")));
        let read = match unnamed {
            true => read_labelled(&format!("; {text}"), labels, EXAMPLE),
            false => read_labelled(text, labels, EXAMPLE),
        };
        let (place, [latitude, longitude, bbox]) = read.map_err(|why| match unnamed {
            // Named as written, not with the `; ` put before it.
            true => why.replacen(&format!("'; {text}'"), &format!("'{text}'"), 1),
            false => why,
        })?;
        let location = Location {
            place,
            latitude,
            longitude,
            bbox,
        };
        Ok(location.normalized())
    }

    /// The keyed form: the name trimmed and in Unicode NFC, each number in its shortest
    /// spelling, a box's bounds joined by `,` alone, an empty part left out.
    pub fn normalized(&self) -> Location {
        let given = |s: &Option<String>| {
            s.as_deref()
                .map(|s| s.nfc().collect::<String>())
                .filter(|s| !s.trim().is_empty())
        };
        Location {
            place: self.place.trim().nfc().collect(),
            latitude: given(&self.latitude).map(|s| degrees(&s)),
            longitude: given(&self.longitude).map(|s| degrees(&s)),
            bbox: given(&self.bbox)
                .map(|s| s.split(',').map(degrees).collect::<Vec<_>>().join(",")),
        }
    }

    /// Nothing in it at all (a blank line in the window).
    pub fn is_blank(&self) -> bool {
        self.normalized() == Location::default()
    }

    /// The point, when both its latitude and its longitude are numbers.
    pub fn point(&self) -> Option<(f64, f64)> {
        let lat = number(self.latitude.as_deref()?)?;
        let lon = number(self.longitude.as_deref()?)?;
        Some((lat, lon))
    }

    /// The box, when it is four numbers.
    pub fn geo_box(&self) -> Option<GeoBox> {
        let bounds: Vec<f64> = self
            .bbox
            .as_deref()?
            .split(',')
            .map(number)
            .collect::<Option<_>>()?;
        match bounds[..] {
            [west, south, east, north] => Some(GeoBox {
                west,
                south,
                east,
                north,
            }),
            _ => None,
        }
    }

    /// What is wrong with it, worded for the person who fixes it; `None` when it can be
    /// sent.
    /// The entry with its point written in decimal degrees with a point where it has a
    /// comma (`lat=47,6` -> `lat=47.6`), as written (`describe`), if that mends it: the
    /// example a refusal gives is then the person's own place.
    pub fn corrected(&self) -> Option<String> {
        let point = |v: &Option<String>| {
            v.as_ref().map(|t| match number(t) {
                None if number(&t.replace(',', ".")).is_some() => t.replace(',', "."),
                _ => t.clone(),
            })
        };
        let mended = Location {
            latitude: point(&self.latitude),
            longitude: point(&self.longitude),
            ..self.clone()
        };
        (mended != *self && mended.problem().is_none()).then(|| mended.normalized().describe())
    }

    pub fn problem(&self) -> Option<String> {
        let l = self.normalized();
        let said = l.describe();
        if let Some(why) = unread_line_problem(&l.place, &said, Location::parse) {
            return Some(why);
        }
        if let Some(why) = line_break_problem(&said, &[Some(&l.place)]) {
            return Some(why);
        }
        // `Zurich, lat=47.27, lon=8.65`: parts run into the name, which would be sent as
        // the place's name with no point.
        if let Some(label) = ["lat=", "lon=", "box="]
            .iter()
            .find(|label| l.place.contains(**label))
        {
            return Some(format!(
                "'{said}' has {label} in the place's name: separate the parts with ';', e.g. \
                 \"{EXAMPLE}\""
            ));
        }
        let nothing = l.latitude.is_none() && l.longitude.is_none() && l.bbox.is_none();
        if nothing && !l.place.chars().any(char::is_alphanumeric) {
            return Some(format!(
                "'{said}' names no place, point or box: give the place's name, its lat= and \
                 lon=, or a box={BOX_FORM}"
            ));
        }
        match (&l.latitude, &l.longitude) {
            (Some(_), None) | (None, Some(_)) => {
                return Some(format!(
                    "'{said}' gives half a point: give both its lat= and its lon="
                ));
            }
            (Some(lat), Some(lon)) => {
                let problem = degrees_problem(lat, "latitude", 90.0)
                    .or_else(|| degrees_problem(lon, "longitude", 180.0));
                if problem.is_some() {
                    return problem;
                }
            }
            (None, None) => {}
        }
        if let Some(bbox) = &l.bbox {
            let bounds: Vec<&str> = bbox.split(',').collect();
            let [west, south, east, north] = bounds[..] else {
                return Some(format!(
                    "box '{bbox}' should be four numbers, {BOX_FORM} (in degrees, as \
                     bboxfinder.com gives them)"
                ));
            };
            let problem = degrees_problem(west, "west bound (a longitude)", 180.0)
                .or_else(|| degrees_problem(south, "south bound (a latitude)", 90.0))
                .or_else(|| degrees_problem(east, "east bound (a longitude)", 180.0))
                .or_else(|| degrees_problem(north, "north bound (a latitude)", 90.0));
            if problem.is_some() {
                return problem;
            }
            if number(south) > number(north) {
                return Some(format!(
                    "box '{bbox}' has its south bound ({south}) north of its north bound \
                     ({north}): write it as {BOX_FORM}"
                ));
            }
        }
        None
    }

    /// As it is written: `Lake Zurich; lat=47.27; lon=8.65`.
    pub fn describe(&self) -> String {
        let text = join_labelled(
            &self.place,
            &[
                ("lat", self.latitude.as_deref()),
                ("lon", self.longitude.as_deref()),
                ("box", self.bbox.as_deref()),
            ],
        );
        // A point or box with no name reads as it is written.
        text.strip_prefix("; ").map_or(text.clone(), str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Location {
        Location::parse(text).unwrap()
    }

    #[test]
    fn a_location_is_a_name_a_point_or_a_box_each_number_in_one_spelling() {
        assert_eq!(
            at(" Lake Zurich ; lon= 8.650 ; lat=+47.27 "),
            Location {
                place: "Lake Zurich".into(),
                latitude: Some("47.27".into()),
                longitude: Some("8.65".into()),
                bbox: None,
            }
        );
        let unnamed = at("box=5.9, 45.8,10.50 ,47.8");
        assert_eq!(unnamed.place, "");
        assert_eq!(unnamed.bbox.as_deref(), Some("5.9,45.8,10.5,47.8"));
        assert_eq!(unnamed.describe(), "box=5.9,45.8,10.5,47.8");
        assert_eq!(at("lat=-0; lon=0.0").describe(), "lat=0; lon=0");
        assert_eq!(at("Disko Bay").describe(), "Disko Bay");
        for written in [
            "Lake Zurich; lat=47.27; lon=8.65",
            "Alps; box=5.9,45.8,10.5,47.8",
            "lat=69; lon=-52",
        ] {
            assert_eq!(at(written).describe(), written);
            assert_eq!(at(&at(written).describe()), at(written), "{written}");
            assert_eq!(at(written).problem(), None, "{written}");
        }
    }

    #[test]
    fn a_location_that_cannot_be_read_is_refused_naming_the_part() {
        let why = Location::parse("Zurich; 47.27").unwrap_err();
        assert!(
            why.starts_with("'Zurich; 47.27': '47.27' should be lat=LATITUDE, lon=LONGITUDE"),
            "{why}"
        );
        let why = Location::parse("lat=1; north=2").unwrap_err();
        assert!(
            why.starts_with("'lat=1; north=2': unknown part 'north'"),
            "{why}"
        );
    }

    #[test]
    fn each_problem_is_named_with_what_to_write() {
        let problem = |text: &str| at(text).problem().unwrap_or_default();
        assert!(problem("; lat=").contains("names no place, point or box"));
        assert_eq!(
            problem("Zurich, lat=47.27, lon=8.65"),
            "'Zurich, lat=47.27, lon=8.65' has lat= in the place's name: separate the parts \
             with ';', e.g. \"Lake Zurich; lat=47.27; lon=8.65\""
        );
        assert!(problem("Zurich; lat=47.27").contains("gives half a point"));
        assert_eq!(
            problem("Zurich; lat=47,27; lon=8.65"),
            "'47,27' is not a latitude: write decimal degrees with a point (47.27)"
        );
        assert_eq!(
            problem("Zurich; lat=north; lon=8.65"),
            "'north' is not a latitude: write decimal degrees, e.g. 47.27"
        );
        assert_eq!(
            problem("Zurich; lat=8.65; lon=147.27"),
            "",
            "a longitude goes to 180"
        );
        assert_eq!(
            problem("Zurich; lat=147.27; lon=8.65"),
            "latitude 147.27 is outside -90 to 90 degrees"
        );
        assert_eq!(
            problem("lat=NaN; lon=1"),
            "'NaN' is not a latitude: write decimal degrees, e.g. 47.27"
        );
        assert!(problem("Alps; box=5.9,45.8,10.5").contains("should be four numbers"));
        assert_eq!(
            problem("Alps; box=5.9,47.8,10.5,45.8"),
            "box '5.9,47.8,10.5,45.8' has its south bound (47.8) north of its north bound \
             (45.8): write it as WEST,SOUTH,EAST,NORTH"
        );
        assert_eq!(
            problem("Pacific; box=170,-10,-170,10"),
            "",
            "a box across the 180th meridian"
        );
        assert!(problem("Alps; box=5.9,45.8,190,47.8").contains("east bound (a longitude)"));
        let broken = Location {
            place: "Lake\nZurich".into(),
            ..Location::default()
        };
        assert!(broken.problem().unwrap().contains("line break"));
    }

    #[test]
    fn points_and_boxes_are_read_as_numbers() {
        assert_eq!(at("lat=47.27; lon=8.65").point(), Some((47.27, 8.65)));
        assert_eq!(at("Zurich").point(), None);
        assert_eq!(
            at("box=5.9,45.8,10.5,47.8").geo_box(),
            Some(GeoBox {
                west: 5.9,
                south: 45.8,
                east: 10.5,
                north: 47.8
            })
        );
        assert_eq!(at("box=5.9,45.8").geo_box(), None);
    }
}
