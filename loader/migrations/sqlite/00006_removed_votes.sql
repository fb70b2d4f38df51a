-- A vote deleted, or moved to another flag or time, no longer makes the
-- next load read all its flag's votes again (the PostgreSQL migration
-- 00008 says why): the flag keeps its last 16 removals, each as three
-- numbers (the counter's value when the vote was removed, the vote's
-- stamp, its creation time in Unix milliseconds), a JSON array. The
-- triggers run in the voting application's SQLite: julianday, which every
-- version has, not unixepoch (3.38) with 'subsec' (3.42).

-- +goose Up
ALTER TABLE flags ADD COLUMN removed_votes TEXT NOT NULL DEFAULT '[]';
DROP TRIGGER votes_lost;
-- +goose StatementBegin
CREATE TRIGGER votes_lost AFTER DELETE ON votes
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE flags SET removed_votes = json_insert(
            CASE WHEN json_array_length(removed_votes) >= 48
                 THEN json_remove(removed_votes, '$[0]', '$[0]', '$[0]') ELSE removed_votes END,
            '$[#]', (SELECT n FROM change_stamp), '$[#]', OLD.stamp,
            '$[#]', CAST(round((julianday(OLD.created_at) - 2440587.5) * 86400000) AS INTEGER))
     WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd
DROP TRIGGER votes_moved;
-- +goose StatementBegin
CREATE TRIGGER votes_moved AFTER UPDATE OF flag_id, created_at ON votes
WHEN OLD.flag_id IS NOT NEW.flag_id OR OLD.created_at IS NOT NEW.created_at
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE votes SET stamp = (SELECT n FROM change_stamp)
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
    UPDATE flags SET removed_votes = json_insert(
            CASE WHEN json_array_length(removed_votes) >= 48
                 THEN json_remove(removed_votes, '$[0]', '$[0]', '$[0]') ELSE removed_votes END,
            '$[#]', (SELECT n FROM change_stamp), '$[#]', OLD.stamp,
            '$[#]', CAST(round((julianday(OLD.created_at) - 2440587.5) * 86400000) AS INTEGER))
     WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER votes_moved;
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
DROP TRIGGER votes_lost;
-- +goose StatementBegin
CREATE TRIGGER votes_lost AFTER DELETE ON votes
BEGIN
    UPDATE change_stamp SET n = n + 1;
    UPDATE flags SET reread_stamp = (SELECT n FROM change_stamp) WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd
ALTER TABLE flags DROP COLUMN removed_votes;
