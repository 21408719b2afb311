#!/usr/bin/env bash
# Installs what the window's snapshot tests need to render on the CPU: Mesa's Vulkan
# drivers (lavapipe) and the Vulkan loader, for wgpu. Does nothing when they are present.
set -euo pipefail
"$(dirname "$0")/apt-packages.sh" "Mesa's lavapipe Vulkan driver, for the window tests" \
    mesa-vulkan-drivers libvulkan1
