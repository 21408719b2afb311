//! Team mode's clocks. Leases are timed by each machine's own clock, so on a shared
//! database a machine whose clock is far from the others' misjudges their leases: ahead, it
//! takes over jobs other machines are still sending; behind, its own leases look expired to
//! them early. The repository still keeps each deposit to one record (it arbitrates, and
//! fencing refuses the late result), but the work is done twice and the log fills with
//! take-overs. Lodge cannot set the clock; it can say so when the clock is off.

use super::{Result, Store, now_ms, sql::args};

/// How far a machine's clock may be from the database server's before Lodge warns: well
/// inside a lease (30 s by default, renewed every third of it).
const TOLERANCE_MS: i64 = 5_000;

impl Store {
    /// How far this machine's clock is from the shared database server's, in milliseconds
    /// (positive: ahead), taken at the middle of the round trip. `None` for a SQLite file,
    /// which only this machine's clock ever times.
    pub fn clock_offset_ms(&self) -> Result<Option<i64>> {
        self.with(|db| {
            if !db.is_postgres() {
                return Ok(None);
            }
            let sent = now_ms();
            let server: i64 = db.one(
                "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint",
                args![],
                |r| r.get(0),
            )?;
            let local = sent + (now_ms() - sent) / 2;
            Ok(Some(local - server))
        })
    }

    /// What to warn of when this machine's clock is far from the shared database
    /// server's; `None` when it is close, for SQLite, or when the server cannot be asked
    /// (the command's own work will say why).
    pub fn clock_warning(&self) -> Option<String> {
        clock_warning_text(self.clock_offset_ms().ok()??)
    }
}

fn clock_warning_text(offset_ms: i64) -> Option<String> {
    if offset_ms.abs() <= TOLERANCE_MS {
        return None;
    }
    let seconds = offset_ms.abs() as f64 / 1000.0;
    let (side, effect) = if offset_ms > 0 {
        (
            "ahead of",
            "jobs other machines are still sending look expired here and are taken over",
        )
    } else {
        (
            "behind",
            "this machine's jobs look expired to the other machines early and are taken over",
        )
    };
    Some(format!(
        "this machine's clock is {seconds:.0} s {side} the shared database server's. Leases \
         are timed by each machine's clock, so {effect}: each deposit still makes one record, \
         but work is done twice. Set the clock from the network (NTP, e.g. `timedatectl \
         set-ntp true`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::clock_warning_text;

    #[test]
    fn a_clock_far_from_the_servers_is_named_with_its_direction_and_a_close_one_is_not() {
        assert_eq!(clock_warning_text(800), None);
        assert_eq!(clock_warning_text(-4_999), None);
        let ahead = clock_warning_text(42_000).unwrap();
        assert!(
            ahead.contains("42 s ahead of the shared database server's"),
            "{ahead}"
        );
        assert!(
            ahead.contains("jobs other machines are still sending"),
            "{ahead}"
        );
        let behind = clock_warning_text(-90_500).unwrap();
        assert!(behind.contains("90 s behind the shared"), "{behind}");
        assert!(behind.contains("NTP"), "{behind}");
    }
}
