//! A small Parquet writer for result tables: one row group, one PLAIN data
//! page (v1) per column, compressed with ZSTD (level [`LEVEL`], polars'
//! default too), every column OPTIONAL (nullable, as Arrow writes them), no
//! statistics, no dictionary. Traces come out the size polars makes them
//! (within 10 %: polars adds dictionaries, but not the Arrow schema's
//! footer weight for small tables, which come out smaller). It writes what
//! `tcplab run` needs to put a run's tables on disk without importing a
//! dataframe library (polars' import alone is 0.15-0.2 s of CPU).
//!
//! Followed: the Apache Parquet format specification (parquet-format,
//! `parquet.thrift`: `FileMetaData`, `SchemaElement`, `RowGroup`,
//! `ColumnChunk`, `ColumnMetaData`, `PageHeader`, `DataPageHeader`,
//! `LogicalType`; `Encodings.md`: PLAIN and the RLE/bit-packing hybrid of the
//! definition levels) and the Thrift compact protocol specification
//! (thrift `doc/specs/thrift-compact-protocol.md`: field headers with id
//! deltas, zigzag varints, list headers, `STOP`).
//!
//! Types, and what a reader maps them to: `Bool` BOOLEAN; `Int64` INT64 (no
//! annotation: signed 64-bit); `UInt64` INT64 annotated `INTEGER(64,
//! unsigned)` (and `UINT_64`); `UInt32` INT32 annotated `INTEGER(32,
//! unsigned)` (and `UINT_32`); `Int32` INT32; `Float64` DOUBLE; `Float32`
//! FLOAT; `Utf8` BYTE_ARRAY annotated `STRING` (and `UTF8`).

/// ZSTD level of the pages (3: zstd's and polars' default; a queue trace
/// of 72,000 rows: 2.5 MB plain, 33 KB, where polars writes 31 KB).
pub const LEVEL: i32 = 3;

/// One column's values; `None` is a null.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// BOOLEAN.
    Bool(Vec<Option<bool>>),
    /// INT32.
    Int32(Vec<Option<i32>>),
    /// INT64.
    Int64(Vec<Option<i64>>),
    /// INT32, unsigned.
    UInt32(Vec<Option<u32>>),
    /// INT64, unsigned.
    UInt64(Vec<Option<u64>>),
    /// FLOAT.
    Float32(Vec<Option<f32>>),
    /// DOUBLE.
    Float64(Vec<Option<f64>>),
    /// BYTE_ARRAY, UTF-8 string.
    Utf8(Vec<Option<String>>),
    /// BYTE_ARRAY, UTF-8 string, no nulls: each row the name its code
    /// picks (a trace's flow or link names, without a string per row). The
    /// file is the one `Utf8` of the same strings gives.
    Names(Vec<u32>, Vec<String>),
}

impl Column {
    /// Number of values (nulls included).
    pub fn len(&self) -> usize {
        match self {
            Column::Bool(v) => v.len(),
            Column::Int32(v) => v.len(),
            Column::Int64(v) => v.len(),
            Column::UInt32(v) => v.len(),
            Column::UInt64(v) => v.len(),
            Column::Float32(v) => v.len(),
            Column::Float64(v) => v.len(),
            Column::Utf8(v) => v.len(),
            Column::Names(codes, _) => codes.len(),
        }
    }
    /// Whether the column has no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Physical type (`parquet.thrift` `Type`).
    fn physical(&self) -> i32 {
        match self {
            Column::Bool(_) => 0,
            Column::Int32(_) | Column::UInt32(_) => 1,
            Column::Int64(_) | Column::UInt64(_) => 2,
            Column::Float32(_) => 4,
            Column::Float64(_) => 5,
            Column::Utf8(_) | Column::Names(..) => 6,
        }
    }
    /// Definition levels (1 = a value, 0 = null) and the PLAIN-encoded
    /// non-null values.
    fn levels_and_values(&self) -> (Vec<bool>, Vec<u8>) {
        fn plain<T: Copy>(
            v: &[Option<T>],
            out: &mut Vec<u8>,
            put: impl Fn(T, &mut Vec<u8>),
        ) -> Vec<bool> {
            v.iter()
                .map(|x| match x {
                    Some(x) => {
                        put(*x, out);
                        true
                    }
                    None => false,
                })
                .collect()
        }
        let mut out = Vec::new();
        let levels = match self {
            Column::Bool(v) => {
                // PLAIN booleans: bit-packed, least significant bit first.
                let bits: Vec<bool> = v.iter().flatten().copied().collect();
                for chunk in bits.chunks(8) {
                    out.push(
                        chunk
                            .iter()
                            .enumerate()
                            .fold(0u8, |b, (i, &x)| b | ((x as u8) << i)),
                    );
                }
                v.iter().map(Option::is_some).collect()
            }
            Column::Int32(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::Int64(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::UInt32(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::UInt64(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::Float32(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::Float64(v) => plain(v, &mut out, |x, o| o.extend(x.to_le_bytes())),
            Column::Utf8(v) => v
                .iter()
                .map(|x| match x {
                    Some(s) => {
                        out.extend((s.len() as u32).to_le_bytes());
                        out.extend(s.as_bytes());
                        true
                    }
                    None => false,
                })
                .collect(),
            Column::Names(codes, names) => {
                for &c in codes {
                    let s = names[c as usize].as_bytes();
                    out.extend((s.len() as u32).to_le_bytes());
                    out.extend(s);
                }
                vec![true; codes.len()]
            }
        };
        (levels, out)
    }
}

/// The Parquet file of `columns` (name, values), all of one length: its
/// bytes, ready to be written. None when the lengths differ or a column is
/// too large for one page (the format's 32-bit sizes and counts: 2^31 rows,
/// 2 GiB per column): write such a table another way.
pub fn write(columns: &[(String, Column)]) -> Option<Vec<u8>> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    write_with(rows, &names, |i| {
        Some(std::borrow::Cow::Borrowed(&columns[i].1))
    })
}

/// `write` with each column asked of `column(i)` when its page is written
/// and dropped after it, so that one column's values are in memory at a
/// time, not the table's. None as `write`, or when `column` gives None.
pub fn write_with<'a>(
    rows: usize,
    names: &[&str],
    mut column: impl FnMut(usize) -> Option<std::borrow::Cow<'a, Column>>,
) -> Option<Vec<u8>> {
    if i32::try_from(rows).is_err() {
        return None;
    }
    let mut file = b"PAR1".to_vec();
    // Per column: (physical type, logical annotation, offset, size, raw size).
    let mut chunks = Vec::with_capacity(names.len());
    for i in 0..names.len() {
        let col = column(i)?;
        if col.len() != rows {
            return None;
        }
        let (levels, values) = col.levels_and_values();
        let levels = rle_levels(&levels);
        let mut raw = Vec::with_capacity(4 + levels.len() + values.len());
        raw.extend((levels.len() as u32).to_le_bytes());
        raw.extend(&levels);
        raw.extend(&values);
        drop(values);
        let page = compress(&raw);
        let (Ok(raw_len), Ok(page_len)) = (i32::try_from(raw.len()), i32::try_from(page.len()))
        else {
            return None;
        };
        let mut header = Thrift::default();
        header.i32(1, 0); // type: DATA_PAGE
        header.i32(2, raw_len); // uncompressed_page_size
        header.i32(3, page_len); // compressed_page_size
        header.begin(5); // data_page_header
        header.i32(1, rows as i32); // num_values
        header.i32(2, 0); // encoding: PLAIN
        header.i32(3, 3); // definition_level_encoding: RLE
        header.i32(4, 3); // repetition_level_encoding: RLE
        header.end();
        header.stop();
        let offset = file.len() as i64;
        let size = (header.buf.len() + page.len()) as i64;
        let raw_size = (header.buf.len() + raw.len()) as i64;
        file.extend(&header.buf);
        file.extend(&page);
        let logical = match col.as_ref() {
            Column::Utf8(_) | Column::Names(..) => Logical::String,
            Column::UInt32(_) => Logical::Unsigned(32),
            Column::UInt64(_) => Logical::Unsigned(64),
            _ => Logical::None,
        };
        chunks.push((col.physical(), logical, offset, size, raw_size));
    }
    let mut meta = Thrift::default();
    meta.i32(1, 1); // version
    meta.list_begin(2, 12, names.len() + 1); // schema
    meta.struct_begin();
    meta.binary(4, b"schema"); // the root: name, num_children
    meta.i32(5, names.len() as i32);
    meta.struct_end();
    for (name, &(physical, logical, ..)) in names.iter().zip(&chunks) {
        meta.struct_begin();
        meta.i32(1, physical);
        meta.i32(3, 1); // repetition_type: OPTIONAL
        meta.binary(4, name.as_bytes());
        // converted_type and logicalType
        match logical {
            Logical::String => {
                meta.i32(6, 0); // UTF8
                meta.begin(10);
                meta.begin(1); // STRING: StringType {}
                meta.end();
                meta.end();
            }
            Logical::Unsigned(bits) => {
                meta.i32(6, if bits == 32 { 13 } else { 14 }); // UINT_32, UINT_64
                meta.begin(10);
                meta.begin(10); // INTEGER: IntType { bitWidth, isSigned }
                meta.byte(1, bits);
                meta.bool(2, false);
                meta.end();
                meta.end();
            }
            Logical::None => {}
        }
        meta.struct_end();
    }
    meta.i64(3, rows as i64); // num_rows
    meta.list_begin(4, 12, 1); // row_groups
    meta.struct_begin();
    meta.list_begin(1, 12, chunks.len()); // columns
    let mut total = 0;
    for (name, &(physical, _, offset, size, raw_size)) in names.iter().zip(&chunks) {
        total += raw_size;
        meta.struct_begin();
        meta.i64(2, offset); // file_offset
        meta.begin(3); // meta_data
        meta.i32(1, physical);
        meta.list_begin(2, 5, 2); // encodings: PLAIN, RLE
        meta.list_i32(0);
        meta.list_i32(3);
        meta.list_begin(3, 8, 1); // path_in_schema
        meta.list_binary(name.as_bytes());
        meta.i32(4, CODEC); // codec
        meta.i64(5, rows as i64); // num_values
        meta.i64(6, raw_size); // total_uncompressed_size
        meta.i64(7, size); // total_compressed_size
        meta.i64(9, offset); // data_page_offset
        meta.end();
        meta.struct_end();
    }
    meta.i64(2, total); // total_byte_size
    meta.i64(3, rows as i64); // num_rows
    meta.struct_end();
    // created_by, as the spec has it: "<application> version <version>".
    meta.binary(
        6,
        concat!("tcplab version ", env!("CARGO_PKG_VERSION")).as_bytes(),
    );
    meta.stop();
    file.extend(&meta.buf);
    file.extend((meta.buf.len() as u32).to_le_bytes());
    file.extend(b"PAR1");
    Some(file)
}

/// A column's logical annotation (`converted_type` and `logicalType`).
#[derive(Clone, Copy)]
enum Logical {
    None,
    String,
    Unsigned(u8),
}

/// Parquet's codec of the pages (`CompressionCodec` ZSTD).
const CODEC: i32 = 6;

/// `data` as one zstd frame (RFC 8878), as Parquet's ZSTD codec has it.
fn compress(data: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(data, LEVEL).expect("compressing in memory")
}

/// Definition levels of bit width 1 in the RLE/bit-packing hybrid: one RLE
/// run when all are equal, else bit-packed groups of 8 (the last padded).
fn rle_levels(levels: &[bool]) -> Vec<u8> {
    let mut out = Vec::new();
    if levels.is_empty() {
        return out;
    }
    if levels.iter().all(|&l| l == levels[0]) {
        varint(&mut out, (levels.len() as u64) << 1); // RLE run header
        out.push(levels[0] as u8);
        return out;
    }
    let groups = levels.len().div_ceil(8);
    varint(&mut out, ((groups as u64) << 1) | 1); // bit-packed run header
    for chunk in levels.chunks(8) {
        out.push(
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |b, (i, &x)| b | ((x as u8) << i)),
        );
    }
    out
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// A Thrift compact-protocol encoder: field headers carry the id's delta
/// from the previous field of the same struct.
#[derive(Default)]
struct Thrift {
    buf: Vec<u8>,
    last: Vec<i16>,
    field: i16,
}

impl Thrift {
    fn header(&mut self, id: i16, ty: u8) {
        let delta = id - self.field;
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            varint(&mut self.buf, zigzag(id as i64));
        }
        self.field = id;
    }
    fn i32(&mut self, id: i16, v: i32) {
        self.header(id, 5);
        varint(&mut self.buf, zigzag(v as i64));
    }
    fn i64(&mut self, id: i16, v: i64) {
        self.header(id, 6);
        varint(&mut self.buf, zigzag(v));
    }
    fn byte(&mut self, id: i16, v: u8) {
        self.header(id, 3);
        self.buf.push(v);
    }
    fn bool(&mut self, id: i16, v: bool) {
        self.header(id, if v { 1 } else { 2 });
    }
    fn binary(&mut self, id: i16, v: &[u8]) {
        self.header(id, 8);
        varint(&mut self.buf, v.len() as u64);
        self.buf.extend(v);
    }
    /// A struct field: its fields follow, then `end`.
    fn begin(&mut self, id: i16) {
        self.header(id, 12);
        self.struct_begin();
    }
    fn end(&mut self) {
        self.struct_end();
    }
    /// A struct as a list element (no field header).
    fn struct_begin(&mut self) {
        self.last.push(self.field);
        self.field = 0;
    }
    fn struct_end(&mut self) {
        self.stop();
        self.field = self.last.pop().unwrap_or(0);
    }
    fn stop(&mut self) {
        self.buf.push(0);
    }
    fn list_begin(&mut self, id: i16, elem: u8, n: usize) {
        self.header(id, 9);
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            varint(&mut self.buf, n as u64);
        }
    }
    fn list_i32(&mut self, v: i32) {
        varint(&mut self.buf, zigzag(v as i64));
    }
    fn list_binary(&mut self, v: &[u8]) {
        varint(&mut self.buf, v.len() as u64);
        self.buf.extend(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_protocol_encodings_follow_the_spec() {
        // Zigzag: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, 2^31-1 -> 2^32-2.
        assert_eq!(
            [0, -1, 1, -2, i32::MAX as i64].map(zigzag),
            [0, 1, 2, 3, 4294967294]
        );
        // Varint of 300 = 0b1_0010_1100: 0xac 0x02.
        let mut v = vec![];
        varint(&mut v, 300);
        assert_eq!(v, [0xac, 0x02]);
        // Field 1 i32 5: header (delta 1 << 4) | 5 = 0x15, value zigzag 10.
        // Field 3 (delta 2) binary "ab": 0x28, length 2, bytes. A jump of
        // 20 ids: type byte 0x05 then the zigzag id 46 (0x2e), value 0.
        let mut t = Thrift::default();
        t.i32(1, 5);
        t.binary(3, b"ab");
        t.i32(23, 0);
        t.stop();
        assert_eq!(
            t.buf,
            [0x15, 0x0a, 0x28, 0x02, b'a', b'b', 0x05, 0x2e, 0x00, 0x00]
        );
        // A nested struct restarts the deltas; bools are in the type nibble.
        let mut t = Thrift::default();
        t.begin(10);
        t.bool(2, false);
        t.end();
        t.stop();
        assert_eq!(t.buf, [0xac, 0x22, 0x00, 0x00]);
        // A list of 20 i32s has the long header 0xf5 then varint 20.
        let mut t = Thrift::default();
        t.list_begin(2, 5, 20);
        assert_eq!(t.buf, [0x29, 0xf5, 20]);
    }

    #[test]
    fn definition_levels_are_one_run_or_bit_packed_groups() {
        // Ten values: RLE header 10 << 1 = 20, then the value.
        assert_eq!(rle_levels(&[true; 10]), [20, 1]);
        // 1,0,1,1,0,0,0,0, 1: two groups, header (2 << 1) | 1 = 5;
        // bits LSB first: 0b0000_1101 = 13, then 0b1.
        let l = [true, false, true, true, false, false, false, false, true];
        assert_eq!(rle_levels(&l), [5, 13, 1]);
    }

    #[test]
    fn columns_of_different_lengths_are_refused() {
        let a = ("a".to_string(), Column::Bool(vec![Some(true)]));
        let b = ("b".to_string(), Column::Bool(vec![]));
        assert!(write(&[a, b]).is_none());
        assert!(write(&[]).is_some()); // no column, no row: still a file
    }

    #[test]
    fn a_names_column_is_written_as_the_strings_it_picks() {
        // Codes 1, 0, 1 into ["up", "down"]: the file of the Utf8 column
        // "down", "up", "down", byte for byte (same type, levels, values).
        let names = vec!["up".to_string(), "down".to_string()];
        let a = write(&[("n".into(), Column::Names(vec![1, 0, 1], names))]).unwrap();
        let b = write(&[(
            "n".into(),
            Column::Utf8(vec![
                Some("down".into()),
                Some("up".into()),
                Some("down".into()),
            ]),
        )])
        .unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn a_file_has_the_magic_bytes_and_its_footer_length() {
        let f = write(&[
            ("a".into(), Column::Int64(vec![Some(1), None, Some(-3)])),
            (
                "b".into(),
                Column::Utf8(vec![Some("x".into()), Some("yz".into()), None]),
            ),
        ])
        .unwrap();
        assert_eq!(&f[..4], b"PAR1");
        assert_eq!(&f[f.len() - 4..], b"PAR1");
        let footer = u32::from_le_bytes(f[f.len() - 8..f.len() - 4].try_into().unwrap()) as usize;
        // The footer starts with field 1 (version, i32 1): 0x15 0x02.
        let start = f.len() - 8 - footer;
        assert_eq!(&f[start..start + 2], [0x15, 0x02]);
        // Column a's page, after its header: a zstd frame (magic 28 b5 2f
        // fd) of the 4-byte level length, the levels (bit-packed 1,0,1:
        // header 3, byte 0b101), then the two values, 16 bytes.
        let at = f
            .windows(4)
            .position(|w| w == [0x28, 0xb5, 0x2f, 0xfd])
            .unwrap();
        let mut page = zstd::stream::Decoder::new(&f[at..]).unwrap().single_frame();
        let mut raw = vec![];
        std::io::Read::read_to_end(&mut page, &mut raw).unwrap();
        let mut want = vec![2, 0, 0, 0, 3, 5];
        want.extend(1i64.to_le_bytes());
        want.extend((-3i64).to_le_bytes());
        assert_eq!(raw, want);
    }
}
