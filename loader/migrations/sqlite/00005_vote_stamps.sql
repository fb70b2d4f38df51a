-- A load reads the votes it has not seen, not every vote of each flag it
-- reads again (the PostgreSQL migration 00007 says why). A vote carries
-- the counter's value when it was inserted, or moved to another flag or
-- time (stamp); a flag the counter's value when a vote was last deleted
-- from it or moved away (reread_stamp), which makes a load read its votes
-- whole. (On SQLite, which reads statement by statement, a flag approved
-- since the last load is read whole for not being held; PostgreSQL's
-- reread_stamp says so too, for the load in one message.)

-- +goose Up
ALTER TABLE votes ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE flags ADD COLUMN reread_stamp INTEGER NOT NULL DEFAULT 0;
CREATE INDEX votes_stamp_idx ON votes (stamp);
-- +goose StatementBegin
CREATE TRIGGER votes_stamp AFTER INSERT ON votes
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE votes SET stamp = (SELECT n FROM change_stamp)
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER votes_lost AFTER DELETE ON votes
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE flags SET reread_stamp = (SELECT n FROM change_stamp) WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER votes_moved AFTER UPDATE OF flag_id, created_at ON votes
WHEN OLD.flag_id IS NOT NEW.flag_id OR OLD.created_at IS NOT NEW.created_at
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE votes SET stamp = (SELECT n FROM change_stamp)
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
    UPDATE flags SET reread_stamp = (SELECT n FROM change_stamp) WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd
-- The stamp's own update must not count as a change of the vote.
DROP TRIGGER votes_touch;
-- +goose StatementBegin
CREATE TRIGGER votes_touch AFTER UPDATE OF flag_id, user_id, color, created_at ON votes
BEGIN
    UPDATE votes SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER votes_touch;
-- +goose StatementBegin
CREATE TRIGGER votes_touch AFTER UPDATE ON votes
BEGIN
    UPDATE votes SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
END;
-- +goose StatementEnd
DROP TRIGGER votes_moved;
DROP TRIGGER votes_lost;
DROP TRIGGER votes_stamp;
DROP INDEX votes_stamp_idx;
ALTER TABLE flags DROP COLUMN reread_stamp;
ALTER TABLE votes DROP COLUMN stamp;
