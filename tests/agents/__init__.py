"""Tests of agents/: policies, baselines, heuristic, opponent pool, tournaments, ratings."""
