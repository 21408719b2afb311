#!/usr/bin/env bash
# PostgreSQL's server programs (and libfaketime) for the team-mode tests (tests/team_mode.rs,
# tests/store_suite.rs): each test binary starts a throwaway cluster of its own on loopback
# with initdb and pg_ctl (see tests/support/postgres.rs), so nothing needs to be running.
set -euo pipefail
# libfaketime sets one process's clock off from the server's (the clock-warning test).
"$(dirname "$0")/apt-packages.sh" "libfaketime, for the team-mode clock test" faketime
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    exit 0
fi
# The package's own cluster is not used; policy-rc.d keeps apt from starting it.
if [ "$(id -u)" = 0 ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
"$(dirname "$0")/apt-packages.sh" "PostgreSQL's server, for the team-mode tests" postgresql
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
