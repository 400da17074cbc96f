"""The parts of bench/soak.py, one module per job: the site's processes (processes), the load that keeps it busy
(load), the faults and their recoveries (faults), the invariants and what feeds them (invariants), the report
(report), and what they share (common). bench/soak.py composes them into its Soak and is the command; it puts the
repository and platform/ on sys.path before importing them, as the platform's modules need."""
