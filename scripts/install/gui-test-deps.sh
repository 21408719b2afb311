#!/usr/bin/env bash
# Installs what the window's snapshot tests need to render on the CPU: Mesa's Vulkan
# drivers (lavapipe) and the Vulkan loader, for wgpu. Does nothing when they are present.
set -euo pipefail

packages=(mesa-vulkan-drivers libvulkan1)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command -v apt-get >/dev/null || {
    echo "gui-test-deps: install ${missing[*]} (Mesa's lavapipe Vulkan driver) with your package manager" >&2
    exit 1
}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
