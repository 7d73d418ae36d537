"""fox-avatar's shared Python helpers, for the tests, the bench and the tooling (tools/)."""
