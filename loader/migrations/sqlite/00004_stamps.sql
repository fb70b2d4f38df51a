-- What a load has seen is decided by the order of commits, not by clocks
-- (docs/architecture.md, "Freshness"). SQLite runs one writing
-- transaction at a time, so a counter that every write moves gives the
-- rows stamps in commit order: a load that read the counter at n has seen
-- every row stamped up to n, and the next reads those stamped above it.
--
-- change_stamp.n is the counter; change_stamp.reload is the value of n
-- when an approved flag was deleted or a trend row deleted or rewritten,
-- which no stamp can show: a load that has not seen it reads everything.
--
-- flag_totals, the count of approved flags that told a load to read
-- everything when it disagreed with the snapshot, goes with the clocks.

-- +goose Up
CREATE TABLE change_stamp (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    n      INTEGER NOT NULL,
    reload INTEGER NOT NULL
);
INSERT INTO change_stamp (id, n, reload) VALUES (1, 1, 0);

ALTER TABLE flags ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
CREATE INDEX flags_stamp_idx ON flags (stamp);
DROP INDEX flags_updated_at_idx;
DROP TRIGGER flags_touch;
-- +goose StatementBegin
CREATE TRIGGER flags_touch AFTER UPDATE ON flags
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE flags SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                     stamp = (SELECT n FROM change_stamp)
     WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flags_stamp AFTER INSERT ON flags
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE flags SET stamp = (SELECT n FROM change_stamp) WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flags_deleted AFTER DELETE ON flags WHEN OLD.status = 'APPROVED'
BEGIN
    UPDATE change_stamp SET n = n + 1, reload = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flag_snapshots_deleted AFTER DELETE ON flag_snapshots
BEGIN
    UPDATE change_stamp SET n = n + 1, reload = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER flag_snapshots_updated AFTER UPDATE ON flag_snapshots
BEGIN
    UPDATE change_stamp SET n = n + 1, reload = n + 1;
END;
-- +goose StatementEnd

CREATE TABLE data_changes_stamped (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    kind  TEXT NOT NULL CHECK (kind IN ('import', 'seed', 'snapshot')),
    day   TEXT,
    at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    stamp INTEGER NOT NULL DEFAULT 0
);
INSERT INTO data_changes_stamped (id, kind, day, at) SELECT id, kind, day, at FROM data_changes;
DROP TABLE data_changes;
ALTER TABLE data_changes_stamped RENAME TO data_changes;
CREATE INDEX data_changes_stamp_idx ON data_changes (stamp);
-- +goose StatementBegin
CREATE TRIGGER data_changes_stamp AFTER INSERT ON data_changes
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE data_changes SET stamp = (SELECT n FROM change_stamp) WHERE id = NEW.id;
END;
-- +goose StatementEnd

DROP TRIGGER flags_totals_delete;
DROP TRIGGER flags_totals_update;
DROP TRIGGER flags_totals_insert;
DROP TABLE flag_totals;

-- +goose Down
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
DROP TRIGGER data_changes_stamp;
DROP INDEX data_changes_stamp_idx;
ALTER TABLE data_changes DROP COLUMN stamp;
DROP TRIGGER flag_snapshots_updated;
DROP TRIGGER flag_snapshots_deleted;
DROP TRIGGER flags_deleted;
DROP TRIGGER flags_stamp;
DROP TRIGGER flags_touch;
-- +goose StatementBegin
CREATE TRIGGER flags_touch AFTER UPDATE ON flags
BEGIN
    UPDATE flags SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = NEW.id;
END;
-- +goose StatementEnd
CREATE INDEX flags_updated_at_idx ON flags (updated_at);
DROP INDEX flags_stamp_idx;
ALTER TABLE flags DROP COLUMN stamp;
DROP TABLE change_stamp;
