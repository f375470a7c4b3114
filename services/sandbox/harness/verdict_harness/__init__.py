"""Verdict's sandbox harness: the judge, zygote and run-child processes of one sandbox slot.

Node starts `main.main` inside bubblewrap with this package bound read-only; the modules are small
so that each has one job: wire (frames), values (what crosses from a candidate, and its bounds),
child, zygote, control (the judge's view of a run child), plans (streamable asserts), compare (the
stdout rule), judge."""
