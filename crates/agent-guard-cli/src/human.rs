//! Sizes, ages and times for people.

use chrono::{DateTime, Local, NaiveDateTime, Utc};

/// `1536` → `1.5 KiB`.
pub fn bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    let mut remainder = 0;
    while value >= 1024 && unit < UNITS.len() - 1 {
        remainder = value % 1024;
        value /= 1024;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value}.{} {}", remainder * 10 / 1024, UNITS[unit])
    }
}

/// Parses a record timestamp (`YYYY-MM-DDTHH:MM:SSZ`).
pub fn parse(ts: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(ts, "%Y-%m-%dT%H:%M:%SZ")
        .ok()
        .map(|naive| naive.and_utc())
}

/// How long ago `ts` was, as of `now`: `just now`, `3 min ago`, `2 h ago`, `5 days ago`.
pub fn ago(ts: &str, now: DateTime<Utc>) -> String {
    let Some(then) = parse(ts) else {
        return "-".to_owned();
    };
    let seconds = (now - then).num_seconds();
    match seconds {
        s if s < 60 => "just now".to_owned(),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s => {
            let days = s / 86_400;
            format!("{days} day{} ago", if days == 1 { "" } else { "s" })
        }
    }
}

/// `ts` in the local time zone, to the minute (`2026-12-01 09:40`).
pub fn local(ts: &str) -> String {
    parse(ts).map_or_else(
        || "-".to_owned(),
        |t| t.with_timezone(&Local).format("%Y-%m-%d %H:%M").to_string(),
    )
}

/// The current instant: `AGENT_GUARD_NOW` when set (tests), else the clock.
pub fn now(env: &agent_guard_engine::EnvSnapshot) -> DateTime<Utc> {
    env.now
        .as_deref()
        .and_then(|text| DateTime::parse_from_rfc3339(text.trim()).ok())
        .map_or_else(Utc::now, |t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ages() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(5 * 1024 * 1024 * 1024), "5.0 GiB");
        let now = parse("2026-12-01T10:00:00Z").unwrap();
        assert_eq!(ago("2026-12-01T09:59:30Z", now), "just now");
        assert_eq!(ago("2026-12-01T09:57:00Z", now), "3 min ago");
        assert_eq!(ago("2026-12-01T08:00:00Z", now), "2 h ago");
        assert_eq!(ago("2026-11-30T10:00:00Z", now), "1 day ago");
        assert_eq!(ago("garbage", now), "-");
    }
}
