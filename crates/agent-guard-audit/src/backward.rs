//! Reading a log's lines from its end, in blocks, so that the cost depends on how far back
//! the caller looks and not on the size of the file.

use std::io::{Read, Seek, SeekFrom};

/// Lines longer than this are reported as oversized, unread: no valid record is this large,
/// and skipping keeps a corrupt file from costing memory.
pub(crate) const MAX_LINE: usize = 1024 * 1024;

/// Calls `visit(start, line)` for every newline-separated segment of the first `len` bytes
/// of `file`, from the last to the first, until it returns `false`.
///
/// `start` is the segment's offset; `line` its bytes without the newline, or `None` when it
/// is longer than [`MAX_LINE`]. The segment after the last newline comes first, so a file
/// ending with a newline yields an empty segment at `len` first; an empty file yields one
/// empty segment at 0.
pub(crate) fn for_each_line_backwards(
    file: &mut (impl Read + Seek),
    len: u64,
    block: usize,
    mut visit: impl FnMut(u64, Option<&[u8]>) -> bool,
) -> std::io::Result<()> {
    let mut position = len;
    // The bytes from `position` up to the next unvisited newline: the end of a segment whose
    // start has not been read yet.
    let mut pending: Vec<u8> = Vec::new();
    let mut pending_oversized = false;
    let mut chunk = vec![0_u8; block.max(1)];
    while position > 0 {
        let start = position.saturating_sub(chunk.len() as u64);
        let size = usize::try_from(position - start).unwrap_or(chunk.len());
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk[..size])?;
        position = start;

        let mut buffer = &chunk[..size];
        while let Some(newline) = buffer.iter().rposition(|b| *b == b'\n') {
            let segment_start = start + newline as u64 + 1;
            let keep_going = if pending_oversized {
                visit(segment_start, None)
            } else {
                let mut line = buffer[newline + 1..].to_vec();
                line.extend_from_slice(&pending);
                visit(segment_start, Some(&line))
            };
            if !keep_going {
                return Ok(());
            }
            pending.clear();
            pending_oversized = false;
            buffer = &buffer[..newline];
        }
        if !pending_oversized {
            if buffer.len() + pending.len() > MAX_LINE {
                pending_oversized = true;
                pending.clear();
            } else {
                let mut joined = buffer.to_vec();
                joined.extend_from_slice(&pending);
                pending = joined;
            }
        }
    }
    visit(0, (!pending_oversized).then_some(pending.as_slice()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(text: &[u8], block: usize) -> Vec<(u64, Option<Vec<u8>>)> {
        let mut cursor = std::io::Cursor::new(text.to_vec());
        let mut out = Vec::new();
        for_each_line_backwards(&mut cursor, text.len() as u64, block, |start, line| {
            out.push((start, line.map(<[u8]>::to_vec)));
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn segments_come_newest_first_with_their_offsets() {
        for block in [1, 2, 3, 64] {
            assert_eq!(
                segments(b"ab\ncd\n", block),
                [
                    (6, Some(vec![])),
                    (3, Some(b"cd".to_vec())),
                    (0, Some(b"ab".to_vec()))
                ],
                "block {block}"
            );
            assert_eq!(
                segments(b"ab\ncd", block),
                [(3, Some(b"cd".to_vec())), (0, Some(b"ab".to_vec()))]
            );
            assert_eq!(segments(b"", block), [(0, Some(vec![]))]);
        }
    }

    #[test]
    fn oversized_segments_are_not_read() {
        let mut text = vec![b'x'; MAX_LINE + 10];
        text.extend_from_slice(b"\nok\n");
        let got = segments(&text, 4096);
        assert_eq!(got[1], ((MAX_LINE + 11) as u64, Some(b"ok".to_vec())));
        assert_eq!(got[2], (0, None));
    }
}
