"""The profile summary table, laid out as PyTorch's: right-aligned columns two spaces apart, the name column
as wide as the longest name (at most `max_name_column_width`), the device and memory columns only when
recorded, and the self CPU time total underneath."""

from .profiler_util import _format_memory, _format_share, _format_time

_WIDTH = 12
_SPACING = 2


def _time(totals, us):
    return _format_time(us, totals["unit"])


def _sorted(events, sort_by, use_device):
    if sort_by is None:
        return list(events)
    attr = sort_by
    for dev in ("cuda", "xpu", "privateuse1", use_device or "device"):  # every device's columns are "device"
        attr = attr.replace(dev, "device")
    return sorted(events, key=lambda e: getattr(e, attr), reverse=True)


def _columns(events, use_device, profile_memory):
    """[(header, width, cell(event, totals))] for the table's columns after the name."""
    dev = (use_device or "None").upper()
    cols = [
        ("Self CPU %", lambda e, t: _format_share(e.self_cpu_time_total, t["cpu"])),
        ("Self CPU", lambda e, t: _time(t, e.self_cpu_time_total)),
        ("CPU total %", lambda e, t: _format_share(e.cpu_time_total, t["cpu"])),
        ("CPU total", lambda e, t: _time(t, e.cpu_time_total)),
        ("CPU time avg", lambda e, t: _time(t, e.cpu_time)),
    ]
    if any(e.device_time_total > 0 for e in events):
        cols += [
            (f"Self {dev}", lambda e, t: _time(t, e.self_device_time_total)),
            (f"Self {dev} %", lambda e, t: _format_share(e.self_device_time_total, t["device"])),
            (f"{dev} total", lambda e, t: _time(t, e.device_time_total)),
            (f"{dev} time avg", lambda e, t: _time(t, e.device_time)),
        ]
    if profile_memory:
        cols += [
            ("CPU Mem", lambda e, t: _format_memory(e.cpu_memory_usage)),
            ("Self CPU Mem", lambda e, t: _format_memory(e.self_cpu_memory_usage)),
        ]
        if use_device and any(e.device_memory_usage != 0 for e in events):
            cols += [
                (f"{dev} Mem", lambda e, t: _format_memory(e.device_memory_usage)),
                (f"Self {dev} Mem", lambda e, t: _format_memory(e.self_device_memory_usage)),
            ]
    cols.append(("# of Calls", lambda e, t: str(e.count)))
    return [(h, _WIDTH, f) for h, f in cols]


def _short(text, width):
    return text[: width - 3] + "..." if width is not None and len(text) >= width - 3 else text


def build_table(
    events,
    *,
    sort_by=None,
    row_limit=100,
    max_name_column_width=55,
    max_shapes_column_width=80,
    header=None,
    top_level_events_only=False,
    use_device=None,
    profile_memory=False,
    time_unit=None,
):
    if len(events) == 0:
        return ""
    events = _sorted(events, sort_by, use_device)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    cols = [("Name", name_width, None)] + _columns(events, use_device, profile_memory)
    shapes = any(e.input_shapes for e in events)
    if shapes:
        width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_column_width is not None:
            width = min(width, max_shapes_column_width)
        cols.append(("Input Shapes", width, lambda e, t: _short(str(e.input_shapes), max_shapes_column_width)))
    pad = " " * _SPACING
    sep = "".join("-" * w + pad for _, w, _ in cols)

    def row(cells):
        return "".join(c.rjust(w) + pad for c, (_, w, _) in zip(cells, cols))

    totals = {
        "cpu": sum(e.self_cpu_time_total for e in events),
        "device": sum(e.self_device_time_total for e in events),
        "unit": time_unit,
    }
    lines = []
    if header is not None:
        lines += ["=" * len(sep), header]
    if top_level_events_only:
        lines += ["=" * len(sep), "This report only display top-level ops statistics"]
    lines += [sep, row([h for h, _, _ in cols]), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        lines.append(row([_short(e.key, max_name_column_width)] + [f(e, totals) for _, _, f in cols[1:]]))
    lines.append(sep)
    lines.append(f"Self CPU time total: {_time(totals, totals['cpu'])}")
    if totals["device"] > 0:
        lines.append(f"Self {(use_device or 'None').upper()} time total: {_time(totals, totals['device'])}")
    return "\n".join(lines) + "\n"
