"""The trainers' own reward-calling code (OpenRLHF, slime, verl) run against real Verdict servers.

Started by test/trainers/real-clients.test.ts (jest), which runs `python3 -m unittest` here.
"""
