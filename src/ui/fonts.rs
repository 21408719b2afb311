//! Fonts for the scripts egui's built-in fonts lack.
//!
//! The built-in fonts (Ubuntu Light, Hack, and egui's emoji fonts) cover Latin, Greek,
//! Cyrillic and some emoji; a dataset named `土壤样本_北京_2026`, `한국어_데이터` or
//! `عينات_التربة` would be drawn as boxes. [`install`] gives the window the system's own
//! fonts for such characters: egui's `egui_system_font_provider` asks the platform's font
//! fallback (fontconfig, CoreText, DirectWrite) for an installed font that has a character,
//! the first time a character no font has is drawn, and appends that font to the family's
//! fallback list *after* the built-in fonts. So whatever the built-in fonts draw (all of the
//! Latin text, the snapshots' text) draws as before on every machine, and only characters
//! that were boxes change, an emoji such as 🧪 among them where an emoji font is installed
//! (Noto Color Emoji draws in colour). A font collection (`.ttc`) is used at its face's index; the font
//! files are memory-mapped, not copied.
//!
//! Cost: the system's fonts are listed once, on a thread of their own started here, while the
//! window opens (starting it took 1-5 ms); the first frame that needs a fallback waits for that
//! list if it is not done (the first Chinese character took 8-35 ms, a debug build with 27
//! fonts installed; later ones microseconds). A character no installed font has is still a
//! box, and is asked about once. Which font was taken for what is logged by the provider
//! (`log`, debug level), seen only where a logger is set up (Lodge sets none).
//!
//! egui shapes each run of text in one font: Arabic letters join, and a word of Arabic reads
//! right to left. It does no bidirectional layout, though: the runs are placed left to
//! right in the order they are typed, so in `عينات_التربة` (its `_` from the built-in font)
//! the two words stand in the reverse of the order an Arabic reader expects.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use egui::{FallbackRequest, FontInsert, FontProvider};
use egui_system_font_provider::SystemFontProvider;

/// Let the window draw characters its built-in fonts lack with the system's fonts. Call once,
/// when the window's context is first set up (eframe's creation callback); a second call
/// would list the system's fonts a second time for nothing.
pub fn install(ctx: &egui::Context) {
    ctx.add_font_provider(Arc::new(SystemFonts {
        provider: SystemFontProvider::new(),
        failed: AtomicBool::new(false),
    }));
}

/// The system font provider, kept from taking the window down with it: fontique 0.11 (which
/// it uses) panics while listing the fonts of a fontconfig that has none at all (a minimal
/// container: fixed in fontique 0.12, which egui 0.37's provider does not take), and the
/// provider then panics on the UI thread at the first character it is asked for. Such a
/// panic is taken as "no system font", for good; its message is still printed.
struct SystemFonts {
    provider: SystemFontProvider,
    failed: AtomicBool,
}

impl FontProvider for SystemFonts {
    fn font_for(&self, request: &FallbackRequest<'_>) -> Option<FontInsert> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        catch_unwind(AssertUnwindSafe(|| self.provider.font_for(request))).unwrap_or_else(|_| {
            self.failed.store(true, Ordering::Relaxed);
            None
        })
    }
}

#[cfg(test)]
mod tests {
    use egui::{FontFamily, FontId};

    /// Run one pass of `ctx` with its fonts.
    fn with_fonts<R>(
        ctx: &egui::Context,
        f: impl FnOnce(&mut egui::epaint::FontsView<'_>) -> R,
    ) -> R {
        let mut f = Some(f);
        let mut result = None;
        let mut output = ctx.run_ui(Default::default(), |ui| {
            if let Some(f) = f.take() {
                result = Some(ui.fonts_mut(f));
            }
        });
        // The font atlas a real painter would upload: nothing here takes it.
        output.textures_delta.clear();
        result.expect("one pass")
    }

    /// Which fonts of the family's chain have `c`, in order (the first one draws it).
    fn fonts_for(ctx: &egui::Context, family: &FontFamily, c: char) -> Vec<String> {
        with_fonts(ctx, |fonts| {
            fonts
                .characters(family)
                .get(&c)
                .cloned()
                .unwrap_or_default()
        })
    }

    /// The system's fonts come after the built-in ones: Latin text keeps its font and its
    /// line height, whatever fonts the machine has.
    #[test]
    fn latin_text_keeps_the_built_in_fonts() {
        let plain = egui::Context::default();
        let ctx = egui::Context::default();
        super::install(&ctx);
        // Ask for a character the built-in fonts lack, so a system font (if the machine has
        // one for it) joins the chain before the Latin ones are looked at.
        with_fonts(&ctx, |fonts| {
            fonts.has_glyph(&FontId::proportional(14.0), '土')
        });
        for (family, built_in) in [
            (FontFamily::Proportional, "Ubuntu-Light"),
            (FontFamily::Monospace, "Hack"),
        ] {
            for c in ['a', 'Z', '0', 'é', 'ж'] {
                assert_eq!(
                    fonts_for(&ctx, &family, c).first().map(String::as_str),
                    Some(built_in),
                    "{c:?} in {family:?}"
                );
            }
            let font = FontId::new(14.0, family);
            let row_height = |ctx| with_fonts(ctx, |fonts| fonts.row_height(&font));
            assert_eq!(row_height(&ctx), row_height(&plain));
        }
    }
}
