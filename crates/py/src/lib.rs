//! Python bindings for tcplab (`tcplab._core`): conversions between Python
//! and `tcplab-model`, and nothing else. The logic lives in the Rust crates;
//! the user-facing API lives in `python/tcplab/`.
//!
//! Summaries (meta, flows, links) come back as plain Python objects, one list
//! per column; traces, which can be millions of rows, come back as NumPy
//! arrays that take ownership of the Rust vectors without copying.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use tcplab_model::parquet::{self, Column};
use tcplab_model::{
    Catalog, CatalogEntry, CwndTrace, EpisodeResult, FlowResult, GeneratorResult, HostResult,
    LinkPhaseResult, LinkResult, MemoryPart, Meta, PhaseResult, QueueTrace, RttTrace, RunResult,
    TimingResult, Traces, TransferResult,
};

create_exception!(
    tcplab._core,
    ScenarioError,
    PyValueError,
    "A scenario that failed validation; the message names the file, the field, the value and what is allowed."
);

create_exception!(
    tcplab._core,
    BackendError,
    pyo3::exceptions::PyRuntimeError,
    "The real-stack backend cannot run a scenario here (not root, a controller the kernel lacks...) or its run failed; the message says why."
);

impl ScenarioError {
    fn from_model(err: tcplab_model::ScenarioError) -> PyErr {
        ScenarioError::new_err(err.to_string())
    }
}

/// Parse and validate a scenario; returns `{"name": ...}`.
#[pyfunction]
fn validate(py: Python<'_>, text: String, path: String) -> PyResult<Bound<'_, PyDict>> {
    let sc = tcplab_model::parse_scenario(&text, &path).map_err(ScenarioError::from_model)?;
    let out = PyDict::new(py);
    out.set_item(
        "generators",
        generators_to_py(py, &tcplab_model::offered_loads(&sc))?,
    )?;
    let (flows, links) = tcplab_model::result_names(&sc);
    out.set_item("flows", flows)?;
    out.set_item("links", links)?;
    // Every column of the flows and links tables (for checking a metric).
    let columns = PyDict::new(py);
    columns.set_item("flows", flows_to_py(py, &[])?.keys())?;
    columns.set_item("links", links_to_py(py, &[])?.keys())?;
    out.set_item("columns", columns)?;
    let memory = tcplab_model::memory::estimate(&sc, text.len());
    out.set_item("memory_bytes", memory.total)?;
    out.set_item("memory", memory_to_py(py, &memory)?)?;
    out.set_item("measure_end_s", sc.measure_end.as_secs_f64())?;
    out.set_item("name", sc.name)?;
    Ok(out)
}

/// Parse, validate and run a scenario with the GIL released; `seed`
/// overrides the scenario's own seed. `before_run`, when given, is called
/// with the run's memory estimate (`validate`'s "memory") once the scenario
/// is parsed and before it runs; an exception it raises stops the run.
/// `progress`, when given, is called with `(stage, simulated seconds,
/// seconds to simulate, events, wall seconds)` as each stage starts
/// ("building", "running", "collecting") and a few times a second while
/// running; an exception it raises (Ctrl-C's KeyboardInterrupt included,
/// which is then checked for) stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (text, path, seed = None, before_run = None, progress = None, arrays = true))]
fn run<'py>(
    py: Python<'py>,
    text: String,
    path: String,
    seed: Option<u64>,
    before_run: Option<Bound<'py, PyAny>>,
    progress: Option<Bound<'py, PyAny>>,
    arrays: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let text_len = text.len();
    let sc = py
        .detach(move || tcplab_model::parse_scenario(&text, &path))
        .map_err(ScenarioError::from_model)?;
    if let Some(f) = before_run {
        let memory = py.detach(|| tcplab_model::memory::estimate(&sc, text_len));
        f.call1((memory_to_py(py, &memory)?,))?;
    }
    let Some(progress) = progress.map(Bound::unbind) else {
        let result = py.detach(move || tcplab_model::run(&sc, seed));
        return run_result_to_py(py, result, arrays);
    };
    let mut pending: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut report = |p: &tcplab_model::Progress| {
            Python::attach(|py| {
                let args = (
                    p.stage,
                    p.now.as_secs_f64(),
                    p.end.as_secs_f64(),
                    p.events,
                    p.wall_s,
                );
                match progress.call1(py, args).and_then(|_| py.check_signals()) {
                    Ok(()) => true,
                    Err(e) => {
                        pending = Some(e);
                        false
                    }
                }
            })
        };
        tcplab_model::run_with_progress(&sc, seed, Some(&mut report))
    });
    match (result, pending) {
        (_, Some(e)) => Err(e),
        (Some(result), None) => run_result_to_py(py, result, arrays),
        (None, None) => unreachable!("a run stops only when its callback raised"),
    }
}

/// A result table (column name -> a list of values, or a 1-D numpy array)
/// as the bytes of a Parquet file that polars reads back as the DataFrame
/// it builds from the same dict: lists of bools, ints (Int64, or UInt64
/// when a value needs it), floats or strings, with None as null; numpy
/// arrays of bool, int32/64, uint32/64, float32/64. None when a column is of
/// another kind (mixed, empty or all None: polars' Null; a masked array),
/// the lengths differ or a column is too large for one page: the caller
/// writes the table with polars instead.
#[pyfunction]
fn parquet_table<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let mut names = Vec::with_capacity(columns.len());
    let mut values = Vec::with_capacity(columns.len());
    for (k, v) in columns.iter() {
        names.push(k.extract::<String>()?);
        values.push(v);
    }
    let rows = match values.first() {
        Some(v) => v.len()?,
        None => 0,
    };
    // Each column converted when its page is written and dropped after, so
    // that a long trace costs one column's values at a time.
    let mut err = None;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let bytes = parquet::write_with(rows, &refs, |i| match column_of(&values[i]) {
        Ok(c) => c.map(std::borrow::Cow::Owned),
        Err(e) => {
            err = Some(e);
            None
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(bytes.map(|b| PyBytes::new(py, &b)))
}

/// A numpy array's column for `parquet_table`, or None if it is of a kind
/// it leaves to polars.
fn array_column(v: &Bound<'_, PyAny>) -> PyResult<Option<Column>> {
    macro_rules! array {
        ($t:ty, $variant:ident) => {
            if let Ok(a) = v.cast::<PyArray1<$t>>() {
                let a = a.readonly();
                return Ok(Some(Column::$variant(
                    a.as_array().iter().map(|&x| Some(x)).collect(),
                )));
            }
        };
    }
    if v.hasattr("mask")? {
        // A numpy masked array: its masked values are nulls to polars.
        return Ok(None);
    }
    array!(f64, Float64);
    array!(u32, UInt32);
    array!(u64, UInt64);
    array!(i64, Int64);
    array!(i32, Int32);
    array!(f32, Float32);
    array!(bool, Bool);
    Ok(None)
}

/// One column for `parquet_table`, or None if it is of a kind it leaves to polars.
fn column_of(v: &Bound<'_, PyAny>) -> PyResult<Option<Column>> {
    if let Ok(t) = v.cast::<PyTuple>() {
        // (codes, names): a uint32 array indexing a list of str, the strings
        // written without a Python or Rust string per row.
        if t.len() != 2 {
            return Ok(None);
        }
        let first = t.get_item(0)?;
        let codes = match first.cast::<TraceColumn>() {
            Ok(c) => match &c.get().0 {
                TraceValues::U32(v) => Ok(v.clone()),
                _ => return Ok(None),
            },
            Err(_) => match first.cast::<PyArray1<u32>>() {
                Ok(a) => a.to_vec(),
                Err(_) => return Ok(None),
            },
        };
        let (Ok(codes), Ok(names)) = (codes, t.get_item(1)?.extract::<Vec<String>>()) else {
            return Ok(None);
        };
        if codes.iter().any(|&c| c as usize >= names.len()) {
            return Ok(None);
        }
        return Ok(Some(Column::Names(codes, names)));
    }
    if let Ok(c) = v.cast::<TraceColumn>() {
        return Ok(Some(c.get().column()));
    }
    // Lists before numpy arrays: asking whether a value is an array imports
    // numpy, which `tcplab run` never needs (its tables are lists and the
    // core's own trace columns).
    let Ok(list) = v.cast::<PyList>() else {
        return array_column(v);
    };
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Bool,
        Int,
        Float,
        Str,
    }
    let mut kind = None;
    for x in list.iter() {
        let k = if x.is_none() {
            continue;
        } else if x.is_instance_of::<PyBool>() {
            Kind::Bool
        } else if x.is_instance_of::<PyInt>() {
            Kind::Int
        } else if x.is_instance_of::<PyFloat>() {
            Kind::Float
        } else if x.is_instance_of::<PyString>() {
            Kind::Str
        } else {
            return Ok(None);
        };
        match kind {
            None => kind = Some(k),
            Some(seen) if seen != k => return Ok(None),
            _ => {}
        }
    }
    /// Every value of the list as a `T`, None for None.
    fn values<'py, T: for<'a> FromPyObject<'a, 'py, Error = PyErr>>(
        list: &Bound<'py, PyList>,
    ) -> PyResult<Vec<Option<T>>> {
        list.iter()
            .map(|x| (!x.is_none()).then(|| x.extract()).transpose())
            .collect()
    }
    Ok(match kind {
        None => None,
        Some(Kind::Bool) => Some(Column::Bool(values(list)?)),
        Some(Kind::Float) => Some(Column::Float64(values(list)?)),
        Some(Kind::Str) => Some(Column::Utf8(values(list)?)),
        // Int64, or UInt64 when a value needs it (as polars infers).
        Some(Kind::Int) => match values::<i64>(list) {
            Ok(v) => Some(Column::Int64(v)),
            Err(_) => values::<u64>(list).ok().map(Column::UInt64),
        },
    })
}

/// Check that a scenario can run on the real Linux stack of this machine
/// (root, TUN, controllers the kernel has...), without running it; returns
/// the notes the run would carry. `BackendError` says why not.
#[pyfunction]
fn check_linux(text: String, path: String) -> PyResult<Vec<String>> {
    let sc = tcplab_model::parse_scenario(&text, &path).map_err(ScenarioError::from_model)?;
    tcplab_emu::check(&sc).map_err(|e| BackendError::new_err(e.to_string()))
}

/// Run a scenario on the real Linux stack (network namespaces, TUN devices
/// and tcplab's link emulator), in real time, with the GIL released; the
/// result has the simulator's form. Ctrl-C (a pending KeyboardInterrupt)
/// stops the run and raises it; `BackendError` says what failed.
#[pyfunction]
#[pyo3(signature = (text, path, seed = None))]
fn run_linux<'py>(
    py: Python<'py>,
    text: String,
    path: String,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = tcplab_model::parse_scenario(&text, &path).map_err(ScenarioError::from_model)?;
    let mut pending: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut interrupted = || {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    pending = Some(e);
                    true
                }
            })
        };
        tcplab_emu::run(&sc, seed, &mut interrupted)
    });
    if let Some(e) = pending {
        return Err(e);
    }
    let result = result.map_err(|e| BackendError::new_err(e.to_string()))?;
    run_result_to_py(py, result, true)
}

/// Bytes of a size as scenario files write it ("64KB", "1GiB"); ValueError
/// naming the accepted units otherwise.
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    tcplab_model::units::parse_size(text)
        .map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))
}

/// Seconds of a duration as scenario files write it ("10us", "2ms").
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<f64> {
    tcplab_model::units::parse_duration(text)
        .map(|t| t.as_secs_f64())
        .map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))
}

/// Everything a scenario can name: controllers, queues and profiles.
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let Catalog {
        controllers,
        queues,
        profiles,
    } = tcplab_model::catalog();
    let out = PyDict::new(py);
    out.set_item("controllers", entries_to_py(py, controllers)?)?;
    out.set_item("queues", entries_to_py(py, queues)?)?;
    out.set_item("profiles", entries_to_py(py, profiles)?)?;
    Ok(out)
}

fn entries_to_py(py: Python<'_>, entries: Vec<CatalogEntry>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for CatalogEntry {
        name,
        description,
        source,
        params,
    } in entries
    {
        let d = PyDict::new(py);
        d.set_item("name", name)?;
        d.set_item("description", description)?;
        d.set_item("source", source)?;
        d.set_item("params", params)?;
        out.append(d)?;
    }
    Ok(out)
}

fn run_result_to_py(
    py: Python<'_>,
    result: RunResult,
    arrays: bool,
) -> PyResult<Bound<'_, PyDict>> {
    let RunResult {
        meta,
        flows,
        links,
        phases,
        link_phases,
        generators,
        transfers,
        episodes,
        hosts,
        timing,
        pcap,
        traces,
    } = result;
    let out = PyDict::new(py);
    out.set_item("meta", meta_to_py(py, &meta)?)?;
    out.set_item("flows", flows_to_py(py, &flows)?)?;
    out.set_item("links", links_to_py(py, &links)?)?;
    out.set_item("phases", phases_to_py(py, &phases)?)?;
    out.set_item("link_phases", link_phases_to_py(py, &link_phases)?)?;
    out.set_item("generators", generators_to_py(py, &generators)?)?;
    out.set_item("transfers", transfers_to_py(py, &transfers)?)?;
    out.set_item("episodes", episodes_to_py(py, &episodes)?)?;
    out.set_item("hosts", hosts_to_py(py, &hosts)?)?;
    out.set_item("timing", timing_to_py(py, &timing)?)?;
    let captures = PyDict::new(py);
    for (name, bytes) in pcap {
        captures.set_item(name, pyo3::types::PyBytes::new(py, &bytes))?;
    }
    out.set_item("pcap", captures)?;
    out.set_item("traces", traces_to_py(py, traces, arrays)?)?;
    Ok(out)
}

/// A dict `{field: value}` of a struct, listing every field: the pattern in
/// `_exhaustive` stops compiling when the struct gains a field, so that the
/// bindings cannot silently fall behind the model.
macro_rules! record {
    ($py:expr, $value:expr, $ty:ident { $($field:ident),* $(,)? }) => {{
        #[allow(dead_code)]
        fn _exhaustive(v: &$ty) {
            let $ty { $($field: _),* } = v;
        }
        let v: &$ty = $value;
        let d = PyDict::new($py);
        $( d.set_item(stringify!($field), &v.$field)?; )*
        d
    }};
}

/// A dict `{field: [value per row]}` of a slice of structs, listing every
/// field (see `record!`).
macro_rules! columns {
    ($py:expr, $rows:expr, $ty:ident { $($field:ident),* $(,)? }) => {{
        #[allow(dead_code)]
        fn _exhaustive(v: &$ty) {
            let $ty { $($field: _),* } = v;
        }
        let rows: &[$ty] = $rows;
        let d = PyDict::new($py);
        $(
            let col = PyList::new($py, rows.iter().map(|r| &r.$field))?;
            d.set_item(stringify!($field), col)?;
        )*
        d
    }};
}

fn meta_to_py<'py>(py: Python<'py>, meta: &Meta) -> PyResult<Bound<'py, PyDict>> {
    Ok(record!(
        py,
        meta,
        Meta {
            name,
            seed,
            duration_s,
            measure_start_s,
            measure_end_s,
            events,
            packets,
            wall_s,
            version,
            backend,
            notes,
            timing_flagged,
        }
    ))
}

fn flows_to_py<'py>(py: Python<'py>, rows: &[FlowResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        FlowResult {
            name,
            src,
            dst,
            cc,
            profile,
            start_s,
            goodput_bps,
            bytes_delivered_window,
            bytes_delivered,
            rtt_mean_s,
            rtt_p50_s,
            rtt_p95_s,
            rtt_p99_s,
            rtt_samples,
            segs_sent,
            segs_retrans,
            fast_retransmits,
            timeouts,
            undos,
            spurious_timeouts,
            loss_probes,
            tlp_recoveries,
            ooo_prunes,
            pruned_bytes,
            ecn,
            ecn_reductions,
            segs_sent_window,
            segs_retrans_window,
            timeouts_window,
            completed,
            fct_s,
            transfer_bps,
            mss,
            packet_bytes,
            data_drops,
            retrans_drops,
            first_drop_s,
            first_drop_link,
            first_drop_cwnd,
            first_drop_in_ss,
            retrans_drop_s,
            retrans_drop_link,
            first_reduction_s,
            first_reduction,
            first_reduction_cwnd,
            first_reduction_in_ss,
            double_slow_start,
        }
    ))
}

fn links_to_py<'py>(py: Python<'py>, rows: &[LinkResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        LinkResult {
            name,
            from,
            to,
            rate_bps,
            delay_s,
            utilisation,
            throughput_bps,
            pkts_sent,
            drops,
            marks,
            lost,
            mean_queue_pkts,
            mean_sojourn_s,
            max_sojourn_s,
            qdisc,
            queue_limit_pkts,
            queue_limit_bytes,
        }
    ))
}

fn phases_to_py<'py>(py: Python<'py>, rows: &[PhaseResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        PhaseResult {
            flow,
            flow_index,
            phase,
            start_s,
            end_s,
            goodput_bps,
            bytes_delivered,
            segs_sent,
            segs_retrans,
            retrans_prob,
            timeouts,
        }
    ))
}

fn link_phases_to_py<'py>(
    py: Python<'py>,
    rows: &[LinkPhaseResult],
) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        LinkPhaseResult {
            link,
            link_index,
            phase,
            start_s,
            end_s,
            utilisation,
            throughput_bps,
            bytes_sent,
            pkts_sent,
            drops,
            marks,
            lost,
            mean_queue_pkts,
            mean_sojourn_s,
        }
    ))
}

fn generators_to_py<'py>(
    py: Python<'py>,
    rows: &[GeneratorResult],
) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        GeneratorResult {
            name,
            rate,
            mean_size_bytes,
            offered_bps,
            bottleneck_bps,
            offered_load,
            arrivals,
            completed,
        }
    ))
}

fn timing_to_py<'py>(py: Python<'py>, rows: &[TimingResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        TimingResult {
            link,
            delivered,
            lateness_mean_s,
            lateness_p50_s,
            lateness_p99_s,
            lateness_p999_s,
            rate_error,
            delay_error,
            flagged,
            write_failures,
            acks_timed,
            ack_lag_p10_s,
            ack_lag_p50_s,
            ack_lag_p90_s,
            ack_lag_p99_s,
            ack_lag_p999_s,
            sends_timed,
            send_lag_p10_s,
            send_lag_p50_s,
            send_lag_p90_s,
            sacks_now,
            sack_now_p10_s,
            sack_now_p50_s,
            sack_now_p90_s,
            sacks_held,
            sack_held_p10_s,
            sack_held_p50_s,
            sack_held_p90_s,
            sack_timers,
            sack_timer_p10_s,
            sack_timer_p50_s,
            sack_timer_p90_s,
        }
    ))
}

fn hosts_to_py<'py>(py: Python<'py>, rows: &[HostResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        HostResult {
            name,
            packets,
            utilisation,
            tx_drops,
            rx_drops,
        }
    ))
}

fn episodes_to_py<'py>(py: Python<'py>, rows: &[EpisodeResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        EpisodeResult {
            flow,
            flow_index,
            start_s,
            end_s,
            kind,
            cwnd_before,
            ssthresh,
            timeouts,
            retrans,
            cwnd_after,
        }
    ))
}

fn transfers_to_py<'py>(py: Python<'py>, rows: &[TransferResult]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        TransferResult {
            generator,
            seq,
            src,
            dst,
            size_bytes,
            start_s,
            fct_s,
            completed,
            segs_sent,
            segs_retrans,
            timeouts,
            rtt_mean_s,
        }
    ))
}

/// A dict `{field: column}` of a columnar trace, moving every vector into
/// its column without a copy: a numpy array, or with `$arrays` false a
/// [`TraceColumn`] (no numpy import); the destructuring lists every field.
macro_rules! arrays {
    ($py:expr, $arrays:expr, $value:expr, $ty:ident { $($field:ident),* $(,)? }) => {{
        let $ty { $($field),* } = $value;
        let d = PyDict::new($py);
        $(
            if $arrays {
                d.set_item(stringify!($field), PyArray1::from_vec($py, $field))?;
            } else {
                d.set_item(stringify!($field), TraceColumn::from($field))?;
            }
        )*
        d
    }};
}

/// A trace's column as the core made it, for `run(..., arrays=False)`:
/// `tcplab run` writes it (`parquet_table`) without importing numpy, whose
/// import is most of a short run's time; `to_numpy()` gives the array
/// `run` returns by default.
#[pyclass(frozen, module = "tcplab._core")]
struct TraceColumn(TraceValues);

enum TraceValues {
    F64(Vec<f64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl From<Vec<f64>> for TraceColumn {
    fn from(v: Vec<f64>) -> Self {
        TraceColumn(TraceValues::F64(v))
    }
}
impl From<Vec<u32>> for TraceColumn {
    fn from(v: Vec<u32>) -> Self {
        TraceColumn(TraceValues::U32(v))
    }
}
impl From<Vec<u64>> for TraceColumn {
    fn from(v: Vec<u64>) -> Self {
        TraceColumn(TraceValues::U64(v))
    }
}

#[pymethods]
impl TraceColumn {
    fn __len__(&self) -> usize {
        match &self.0 {
            TraceValues::F64(v) => v.len(),
            TraceValues::U32(v) => v.len(),
            TraceValues::U64(v) => v.len(),
        }
    }
    /// The numpy dtype's name of the values: "float64", "uint32" or "uint64".
    #[getter]
    fn dtype(&self) -> &'static str {
        match &self.0 {
            TraceValues::F64(_) => "float64",
            TraceValues::U32(_) => "uint32",
            TraceValues::U64(_) => "uint64",
        }
    }
    /// The values as a new numpy array of that dtype.
    fn to_numpy<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.0 {
            TraceValues::F64(v) => PyArray1::from_slice(py, v).into_any(),
            TraceValues::U32(v) => PyArray1::from_slice(py, v).into_any(),
            TraceValues::U64(v) => PyArray1::from_slice(py, v).into_any(),
        }
    }
}

impl TraceColumn {
    /// The values as a Parquet column (no nulls).
    fn column(&self) -> Column {
        match &self.0 {
            TraceValues::F64(v) => Column::Float64(v.iter().map(|&x| Some(x)).collect()),
            TraceValues::U32(v) => Column::UInt32(v.iter().map(|&x| Some(x)).collect()),
            TraceValues::U64(v) => Column::UInt64(v.iter().map(|&x| Some(x)).collect()),
        }
    }
}

fn traces_to_py(py: Python<'_>, traces: Traces, arrays: bool) -> PyResult<Bound<'_, PyDict>> {
    let Traces { cwnd, rtt, queue } = traces;
    let out = PyDict::new(py);
    if let Some(t) = cwnd {
        let columns = arrays!(
            py,
            arrays,
            t,
            CwndTrace {
                time_s,
                flow,
                cwnd,
                ssthresh,
                srtt_s,
                inflight_bytes,
                rto_s,
                backoff,
                pacing_rate_bps,
                ca_state,
                cc_bw_bps,
                cc_min_rtt_s,
                cc_pacing_gain,
                cc_cwnd_gain,
            }
        );
        out.set_item("cwnd", columns)?;
    }
    if let Some(t) = rtt {
        out.set_item(
            "rtt",
            arrays!(
                py,
                arrays,
                t,
                RttTrace {
                    time_s,
                    flow,
                    rtt_s
                }
            ),
        )?;
    }
    if let Some(t) = queue {
        let columns = arrays!(
            py,
            arrays,
            t,
            QueueTrace {
                time_s,
                link,
                pkts,
                bytes
            }
        );
        out.set_item("queue", columns)?;
    }
    Ok(out)
}

/// A memory estimate: `{"bytes", "core_bytes", "parts": [{"what", "field",
/// "value", "bytes", "scaling", "number", "unit"}]}`.
fn memory_to_py<'py>(
    py: Python<'py>,
    m: &tcplab_model::MemoryEstimate,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("bytes", m.total)?;
    out.set_item("core_bytes", m.core)?;
    let parts = PyList::empty(py);
    for p in &m.parts {
        parts.append(record!(
            py,
            p,
            MemoryPart {
                what,
                field,
                value,
                bytes,
                scaling,
                number,
                unit,
            }
        ))?;
    }
    out.set_item("parts", parts)?;
    Ok(out)
}

/// The compiled core of tcplab.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", tcplab_model::VERSION)?;
    m.add("__git_revision__", env!("TCPLAB_BUILD_GIT_REVISION"))?;
    m.add("SUMMARY_MAX_ROWS", tcplab_model::memory::SUMMARY_MAX_ROWS)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_table, m)?)?;
    m.add_class::<TraceColumn>()?;
    m.add("BackendError", m.py().get_type::<BackendError>())?;
    m.add_function(wrap_pyfunction!(run_linux, m)?)?;
    m.add_function(wrap_pyfunction!(check_linux, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    Ok(())
}
