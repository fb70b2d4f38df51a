-- flagpole schema, PostgreSQL. The table and column names that the voting
-- application writes (flags.status, votes, users) are part of the public
-- contract; see CONTRACT.md "Where the data comes from".

-- +goose Up
CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE flags (
    id             TEXT PRIMARY KEY,
    slug           TEXT NOT NULL UNIQUE,
    status         TEXT NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED')),
    category       TEXT NOT NULL
                   CHECK (category IN ('CHARACTER', 'BEHAVIORAL', 'CULTURAL', 'RELATIONSHIP',
                                       'COMMUNICATION', 'LIFESTYLE', 'FINANCIAL', 'SOCIAL')),
    region         TEXT CHECK (region IS NULL OR region ~ '^[A-Z]{2}$'),
    text_tr        TEXT NOT NULL,
    text_en        TEXT NOT NULL,
    text_de        TEXT NOT NULL,
    text_es        TEXT NOT NULL,
    description_tr TEXT,
    description_en TEXT,
    description_de TEXT,
    description_es TEXT,
    contexts       TEXT NOT NULL DEFAULT '', -- comma-separated context enums
    red_count      BIGINT NOT NULL DEFAULT 0 CHECK (red_count >= 0),
    green_count    BIGINT NOT NULL DEFAULT 0 CHECK (green_count >= 0),
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX flags_updated_at_idx ON flags (updated_at);
CREATE INDEX flags_status_idx ON flags (status);

CREATE TABLE votes (
    flag_id    TEXT NOT NULL REFERENCES flags (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    color      TEXT NOT NULL CHECK (color IN ('red', 'green')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (flag_id, user_id)
);
CREATE INDEX votes_created_at_idx ON votes (created_at);

CREATE TABLE flag_snapshots (
    flag_id    TEXT NOT NULL REFERENCES flags (id) ON DELETE CASCADE,
    day        DATE NOT NULL,
    red        BIGINT NOT NULL CHECK (red >= 0),
    green      BIGINT NOT NULL CHECK (green >= 0),
    PRIMARY KEY (flag_id, day)
);
CREATE INDEX flag_snapshots_day_idx ON flag_snapshots USING BRIN (day);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    user_id    TEXT REFERENCES users (id) ON DELETE SET NULL,
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE, -- hex SHA-256 of the key; the key itself is never stored
    prefix     TEXT NOT NULL,        -- the first characters, to tell keys apart in a list
    rate_limit INTEGER CHECK (rate_limit IS NULL OR rate_limit > 0),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at TIMESTAMPTZ
);

-- Every UPDATE of a flag (a status change by the voting app, a counter
-- moved by a vote, an import) bumps updated_at, which the loader's
-- incremental load reads.
-- +goose StatementBegin
CREATE FUNCTION flagpole_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := clock_timestamp();
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER flags_touch BEFORE UPDATE ON flags
    FOR EACH ROW EXECUTE FUNCTION flagpole_touch();
CREATE TRIGGER votes_touch BEFORE UPDATE ON votes
    FOR EACH ROW EXECUTE FUNCTION flagpole_touch();

-- A vote moves its flag's counters by a delta, so imported counts stay and
-- later votes add to them.
-- +goose StatementBegin
CREATE FUNCTION flagpole_vote_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.flag_id = NEW.flag_id AND OLD.color = NEW.color THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE flags
           SET red_count   = GREATEST(red_count - (OLD.color = 'red')::int, 0),
               green_count = GREATEST(green_count - (OLD.color = 'green')::int, 0)
         WHERE id = OLD.flag_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE flags
           SET red_count   = red_count + (NEW.color = 'red')::int,
               green_count = green_count + (NEW.color = 'green')::int
         WHERE id = NEW.flag_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER votes_counts AFTER INSERT OR UPDATE OR DELETE ON votes
    FOR EACH ROW EXECUTE FUNCTION flagpole_vote_counts();

-- +goose Down
DROP TABLE api_keys;
DROP TABLE flag_snapshots;
DROP TABLE votes;
DROP TABLE flags;
DROP TABLE users;
DROP FUNCTION flagpole_vote_counts();
DROP FUNCTION flagpole_touch();
