def pytest_terminal_summary(terminalreporter):
    sweep = __import__("sys").modules.get("test_fault_sweep")
    if sweep is not None and sweep.TALLY["cases"]:
        terminalreporter.write_line("fault sweep: " + ", ".join(f"{k} {v}" for k, v in sweep.TALLY.items()))
