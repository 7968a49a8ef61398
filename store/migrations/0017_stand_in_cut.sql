-- An online study's participant who left mid-match and did not come
-- back within the rejoin grace had a bot play their seat for the rest
-- of the session. stand_in marks the seat's rounds a bot played in a
-- person's place, and stand_in_ns the match time (as shots' t_ns) from
-- which it did: 0 for the rounds after the one the person left (those
-- rows also have bot set), the time of the takeover in that round.
-- A round cut short because its game server was lost (killed or
-- crashed before the round's end) is marked cut: its records up to the
-- loss stay, and the report lists it apart from the rounds it
-- analyses.

ALTER TABLE participants ADD COLUMN stand_in BOOLEAN NOT NULL DEFAULT FALSE;

ALTER TABLE participants ADD COLUMN stand_in_ns BIGINT NOT NULL DEFAULT 0;

ALTER TABLE rounds ADD COLUMN cut BOOLEAN NOT NULL DEFAULT FALSE;
