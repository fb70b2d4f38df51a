-- Bulk writes of flagpole's own commands (import, seed, snapshot) are
-- announced here, in the same transaction, so the loader rereads what they
-- wrote however long they ran: timestamps alone cannot see a transaction
-- that commits long after its rows were stamped.

-- +goose Up
CREATE TABLE data_changes (
    id   BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('import', 'seed', 'snapshot')),
    day  DATE,
    at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE data_changes;
