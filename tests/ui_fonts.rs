//! Names in scripts egui's built-in fonts lack (Chinese, Japanese, Korean, Arabic, emoji)
//! are drawn with the system's fonts (`lodge::ui::fonts`), after the built-in fonts, not as
//! boxes.
//!
//! These need the system to have such fonts: `scripts/install/fonts.sh` (run by
//! `scripts/test`) installs `fonts-wqy-microhei` (Chinese, Japanese, Korean),
//! `fonts-dejavu-core` (Arabic) and `fonts-noto-color-emoji`. A script with no installed font
//! (as `fc-list` says) is skipped with the reason printed; on a system without `fc-list`
//! (not Linux) they are all skipped.

mod gui;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use egui::{FontFamily, FontId};
use egui_kittest::kittest::Queryable;
use lodge::sandbox::FaultConfig;

use gui::Window;

/// Dataset folder names a lab might use, and the character whose font the test asks
/// `fc-list` for.
const NAMES: [(&str, char); 5] = [
    ("土壤样本_北京_2026", '土'),
    ("日本語のデータセット", 'の'),
    ("한국어_데이터", '한'),
    ("عينات_التربة", 'ع'),
    ("🧪_assay_runs", '🧪'),
];

/// The font files fontconfig lists as having `c` (none where `fc-list` is missing).
fn font_files_with(c: char) -> Vec<PathBuf> {
    let Ok(out) = Command::new("fc-list")
        .args([format!(":charset={:x}", c as u32).as_str(), "file"])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_suffix(':'))
        .map(PathBuf::from)
        .collect()
}

/// The names whose script has an installed font; prints why each other one is skipped.
fn names_with_fonts() -> Vec<&'static str> {
    NAMES
        .iter()
        .filter(|(name, c)| {
            let found = !font_files_with(*c).is_empty();
            if !found {
                println!(
                    "skipped {name}: no installed font has {c:?} (fc-list); \
                     scripts/install/fonts.sh installs them"
                );
            }
            found
        })
        .map(|(name, _)| *name)
        .collect()
}

fn with_fonts<R>(w: &mut Window, f: impl FnOnce(&mut egui::epaint::FontsView<'_>) -> R) -> R {
    w.harness.ctx.fonts_mut(f)
}

/// A row named in each script shows its name with real glyphs: the window's fonts have every
/// character of it (before `fonts::install` they have none of the Chinese, Japanese, Korean
/// or Arabic ones), from a system font after egui's built-in ones, and the row's Latin
/// and digits keep the built-in font.
#[test]
fn names_in_other_scripts_are_drawn_with_system_fonts() {
    let names = names_with_fonts();
    if names.is_empty() {
        println!("skipped: no font for any of the scripts is installed");
        return;
    }
    let mut w = Window::open(FaultConfig::default());
    let body = FontId::proportional(14.0);
    for name in &names {
        let missing = with_fonts(&mut w, |f| {
            name.chars()
                .filter(|c| !c.is_ascii() && !f.has_glyph(&body, *c))
                .count()
        });
        assert!(missing > 0, "the built-in fonts already draw {name}");
    }

    lodge::ui::fonts::install(&w.harness.ctx);
    for name in &names {
        let cff = format!(
            "cff-version: 1.2.0\ntitle: \"{name}\"\nauthors:\n  - family-names: 王\n    \
             given-names: 小明\ndate-released: 2026-03-01\npublisher: Lodge test lab\n"
        );
        let folder = w.lab.folder(
            name,
            &[
                ("CITATION.cff", cff.as_bytes()),
                ("data.csv", format!("name\n{name}\n").as_bytes()),
            ],
        );
        w.add_folder(&folder);
    }
    w.harness.run();
    let id = w.row_id(names[0]);
    w.select(id);

    for name in &names {
        assert!(
            w.harness.query_all_by_label_contains(name).next().is_some(),
            "nothing shows {name}"
        );
        for family in [FontFamily::Proportional, FontFamily::Monospace] {
            let font = FontId::new(14.0, family.clone());
            let missing: Vec<char> = with_fonts(&mut w, |f| {
                name.chars().filter(|c| !f.has_glyph(&font, *c)).collect()
            });
            assert!(missing.is_empty(), "{family:?} lacks {missing:?} of {name}");
        }
    }
    // The creator the details show, from a system font too.
    let shows_creator = |n: &egui_kittest::kittest::AccessKitNode<'_>| {
        n.value().is_some_and(|v| v.contains("王, 小明"))
            || n.label().is_some_and(|l| l.contains("王, 小明"))
    };
    assert!(
        w.harness.query_all_by(shows_creator).next().is_some(),
        "the details do not show the creator"
    );
    assert!(with_fonts(&mut w, |f| f.has_glyphs(&body, "王, 小明")));

    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        let built_in = match family {
            FontFamily::Monospace => "Hack",
            _ => "Ubuntu-Light",
        };
        let (chain_of_names, latin) = with_fonts(&mut w, |f| {
            let chars = f.characters(&family);
            let first = |c: char| chars.get(&c).and_then(|fonts| fonts.first()).cloned();
            let of_names: Vec<(char, Option<String>)> = names
                .iter()
                .flat_map(|n| n.chars())
                .filter(|c| !c.is_ascii())
                .map(|c| (c, first(c)))
                .collect();
            let latin: Vec<(char, Option<String>)> =
                "_2026aZ".chars().map(|c| (c, first(c))).collect();
            (of_names, latin)
        });
        for (c, font) in chain_of_names {
            let font = font.unwrap_or_else(|| panic!("no {family:?} font has {c:?}"));
            assert!(
                font.starts_with("system:"),
                "{c:?} in {family:?} comes from {font}, not a system font"
            );
        }
        for (c, font) in latin {
            assert_eq!(font.as_deref(), Some(built_in), "{c:?} in {family:?}");
        }
    }
}

/// A child of this test binary (run by the test below with its own fontconfig setup): the
/// window's fonts with `fonts::install`, asked for 土 and the Latin letters around it.
/// Prints one line, `FOUND <font name>` or `NONE`, and what draws `a`.
#[test]
#[ignore = "run by a_font_in_the_font_folder_is_found_after_the_built_in_ones, in a child process"]
fn child_font_lookup() {
    let ctx = egui::Context::default();
    lodge::ui::fonts::install(&ctx);
    let mut output = ctx.run_ui(Default::default(), |ui| {
        let font = FontId::proportional(14.0);
        ui.fonts_mut(|f| {
            let found = f.has_glyph(&font, '土');
            let chars = f.characters(&FontFamily::Proportional);
            let of = |c: char| {
                chars
                    .get(&c)
                    .map(|fonts| fonts.join(","))
                    .unwrap_or_default()
            };
            if found {
                println!("FOUND {}", of('土'));
            } else {
                println!("NONE");
            }
            println!("LATIN {}", of('a'));
            if f.has_glyph(&FontId::monospace(14.0), '土') {
                let mono = f.characters(&FontFamily::Monospace).get(&'土').cloned();
                println!("MONO {}", mono.unwrap_or_default().join(","));
            }
        });
    });
    output.textures_delta.clear();
}

/// Run [`child_font_lookup`] with fontconfig set up to know only the fonts in `dir`.
fn lookup_with_font_folder(dir: &Path) -> String {
    let conf = dir.with_extension("conf");
    std::fs::write(
        &conf,
        format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"urn:fontconfig:fonts.dtd\">\n\
             <fontconfig><dir>{}</dir><cachedir>{}</cachedir></fontconfig>\n",
            dir.display(),
            dir.with_extension("cache").display()
        ),
    )
    .unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_font_lookup",
            "--exact",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FONTCONFIG_FILE", &conf)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child failed: {out:?}");
    stdout
}

/// Given a font folder holding a known CJK font (a `.ttc` collection), the window's fonts
/// find it for 土 and list it after egui's built-in fonts; given an empty one, 土 is simply
/// not found (no error, no panic). Each lookup runs in a child process whose fontconfig knows
/// only that folder.
#[test]
fn a_font_in_the_font_folder_is_found_after_the_built_in_ones() {
    let Some(font) = font_files_with('土').into_iter().next() else {
        println!(
            "skipped: no installed font has 土 (fc-list); scripts/install/fonts.sh installs \
             fonts-wqy-microhei"
        );
        return;
    };
    let lab = support::Lab::new();

    let empty = lab.path("empty-fonts");
    std::fs::create_dir_all(&empty).unwrap();
    let stdout = lookup_with_font_folder(&empty);
    assert!(stdout.contains("NONE"), "{stdout}");
    assert!(stdout.contains("LATIN Ubuntu-Light\n"), "{stdout}");

    let fonts = lab.path("cjk-fonts");
    std::fs::create_dir_all(&fonts).unwrap();
    std::fs::copy(&font, fonts.join(font.file_name().unwrap())).unwrap();
    let stdout = lookup_with_font_folder(&fonts);
    // libtest prints the test's name first, on the same line.
    let after = |marker: &str| {
        let (_, rest) = stdout.split_once(marker)?;
        rest.lines().next()
    };
    let found = after("FOUND ").unwrap_or_else(|| {
        panic!(
            "{} in the font folder was not used: {stdout}",
            font.display()
        )
    });
    assert!(found.starts_with("system:"), "{stdout}");
    // Latin stays with the built-in font, the system font after it if it has Latin too.
    let latin = after("LATIN ").expect("what draws a");
    assert_eq!(latin.split(',').next(), Some("Ubuntu-Light"), "{stdout}");
    // Monospace finds one too (the provider asks for the script, so here the same face).
    let mono = after("MONO ").expect("a monospaced font for 土");
    println!("土 from {found} (Monospace: {mono}); a from {latin}");
}
