-- flagpole schema, SQLite. Same tables, columns and triggers as the
-- PostgreSQL schema; timestamps are ISO 8601 UTC text with milliseconds
-- (2026-05-25T10:11:12.345Z), days are YYYY-MM-DD text.

-- +goose Up
CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE flags (
    id             TEXT PRIMARY KEY,
    slug           TEXT NOT NULL UNIQUE,
    status         TEXT NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED')),
    category       TEXT NOT NULL
                   CHECK (category IN ('CHARACTER', 'BEHAVIORAL', 'CULTURAL', 'RELATIONSHIP',
                                       'COMMUNICATION', 'LIFESTYLE', 'FINANCIAL', 'SOCIAL')),
    region         TEXT CHECK (region IS NULL OR (length(region) = 2 AND region GLOB '[A-Z][A-Z]')),
    text_tr        TEXT NOT NULL,
    text_en        TEXT NOT NULL,
    text_de        TEXT NOT NULL,
    text_es        TEXT NOT NULL,
    description_tr TEXT,
    description_en TEXT,
    description_de TEXT,
    description_es TEXT,
    contexts       TEXT NOT NULL DEFAULT '', -- comma-separated context enums
    red_count      INTEGER NOT NULL DEFAULT 0 CHECK (red_count >= 0),
    green_count    INTEGER NOT NULL DEFAULT 0 CHECK (green_count >= 0),
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX flags_updated_at_idx ON flags (updated_at);
CREATE INDEX flags_status_idx ON flags (status);

CREATE TABLE votes (
    flag_id    TEXT NOT NULL REFERENCES flags (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('red', 'green')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (flag_id, user_id)
);
CREATE INDEX votes_created_at_idx ON votes (created_at);

CREATE TABLE flag_snapshots (
    flag_id    TEXT NOT NULL REFERENCES flags (id) ON DELETE CASCADE,
    day        TEXT NOT NULL,
    red        INTEGER NOT NULL CHECK (red >= 0),
    green      INTEGER NOT NULL CHECK (green >= 0),
    PRIMARY KEY (flag_id, day)
) WITHOUT ROWID; -- clustered by flag and day: the first load reads it in key order, sequentially
CREATE INDEX flag_snapshots_day_idx ON flag_snapshots (day);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    user_id    TEXT REFERENCES users (id) ON DELETE SET NULL,
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE, -- hex SHA-256 of the key; the key itself is never stored
    prefix     TEXT NOT NULL,
    rate_limit INTEGER CHECK (rate_limit IS NULL OR rate_limit > 0),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    revoked_at TEXT
);

-- Every UPDATE of a flag bumps updated_at (recursive triggers are off, so
-- the inner UPDATE does not fire this trigger again).
-- +goose StatementBegin
CREATE TRIGGER flags_touch AFTER UPDATE ON flags
BEGIN
    UPDATE flags SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- A vote moves its flag's counters by a delta.
-- +goose StatementBegin
CREATE TRIGGER votes_insert AFTER INSERT ON votes
BEGIN
    UPDATE flags
       SET red_count   = red_count + (NEW.color = 'red'),
           green_count = green_count + (NEW.color = 'green')
     WHERE id = NEW.flag_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER votes_delete AFTER DELETE ON votes
BEGIN
    UPDATE flags
       SET red_count   = max(red_count - (OLD.color = 'red'), 0),
           green_count = max(green_count - (OLD.color = 'green'), 0)
     WHERE id = OLD.flag_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER votes_update AFTER UPDATE ON votes
WHEN OLD.flag_id IS NOT NEW.flag_id OR OLD.color IS NOT NEW.color
BEGIN
    UPDATE flags
       SET red_count   = max(red_count - (OLD.color = 'red'), 0),
           green_count = max(green_count - (OLD.color = 'green'), 0)
     WHERE id = OLD.flag_id;
    UPDATE flags
       SET red_count   = red_count + (NEW.color = 'red'),
           green_count = green_count + (NEW.color = 'green')
     WHERE id = NEW.flag_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER votes_touch AFTER UPDATE ON votes
BEGIN
    UPDATE votes SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     WHERE flag_id = NEW.flag_id AND user_id = NEW.user_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE api_keys;
DROP TABLE flag_snapshots;
DROP TABLE votes;
DROP TABLE flags;
DROP TABLE users;
