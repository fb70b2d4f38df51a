-- The number of approved flags, kept by triggers, so that a tick checks
-- its snapshot against the database with a one-row read instead of a
-- count over every flag. Vote writes do not touch it: only a flag's
-- insertion, deletion or change of status does.

-- +goose Up
CREATE TABLE flag_totals (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    approved INTEGER NOT NULL
);
INSERT INTO flag_totals (id, approved) SELECT 1, count(*) FROM flags WHERE status = 'APPROVED';

-- +goose StatementBegin
CREATE TRIGGER flags_totals_insert AFTER INSERT ON flags WHEN NEW.status = 'APPROVED'
BEGIN
    UPDATE flag_totals SET approved = approved + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flags_totals_update AFTER UPDATE OF status ON flags WHEN OLD.status IS NOT NEW.status
BEGIN
    UPDATE flag_totals SET approved = approved + (NEW.status = 'APPROVED') - (OLD.status = 'APPROVED');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flags_totals_delete AFTER DELETE ON flags WHEN OLD.status = 'APPROVED'
BEGIN
    UPDATE flag_totals SET approved = approved - 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER flags_totals_delete;
DROP TRIGGER flags_totals_update;
DROP TRIGGER flags_totals_insert;
DROP TABLE flag_totals;
