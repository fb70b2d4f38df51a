-- Bulk writes of flagpole's own commands (import, seed, snapshot) are
-- announced here, in the same transaction, so the loader rereads what they
-- wrote.

-- +goose Up
CREATE TABLE data_changes (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('import', 'seed', 'snapshot')),
    day  TEXT,
    at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- +goose Down
DROP TABLE data_changes;
