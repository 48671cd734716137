"""The Napoleonic ruleset (rules N-*): its campaign on the strategic map (`campaign`), the field battle a meeting of
armies opens (`battle`) and the storm of a besieged fortress (`siege`)."""
