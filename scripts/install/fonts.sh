#!/usr/bin/env bash
# Installs system fonts for the scripts egui's built-in fonts lack, which the window draws
# with the system's fonts (tests/ui_fonts.rs): WenQuanYi Micro Hei (Chinese, Japanese,
# Korean; a .ttc collection), DejaVu (Arabic) and Noto Color Emoji. Does nothing when they
# are present.
set -euo pipefail
"$(dirname "$0")/apt-packages.sh" "fonts for Chinese, Japanese, Korean, Arabic and emoji, for the window tests" \
    fonts-wqy-microhei fonts-dejavu-core fonts-noto-color-emoji
