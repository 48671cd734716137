"""The Napoleonic campaign: a variant of the campaign engine (shared/scenarios/napoleonic) whose armies meet in
tactical battles and sieges (rules N-START, N-VICTORY, N-SIEGE; decisions D-N-12 … D-N-14, D-L-1, D-L-2)."""
