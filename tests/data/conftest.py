"""Lines a test wants in the session's summary (the fault sweep's table and counts), even when it passes."""

from isolated import SUMMARY


def pytest_terminal_summary(terminalreporter):
    if SUMMARY:
        terminalreporter.section("DataLoader and queue fault sweep")
        for line in SUMMARY:
            terminalreporter.write_line(line)
