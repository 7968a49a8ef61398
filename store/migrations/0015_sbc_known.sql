-- A shot's objective_sbc is its victim's client's own judgment: that
-- client's SBC detection of the hit, on the pose it predicted when the
-- hit reached it, sent to the server with the shot it belongs to, live
-- and simulated alike. sbc_known says whether that judgment arrived (a
-- hit whose victim's client was told of it and answered before leaving;
-- objective_sbc is false without one). server_sbc keeps the server's
-- approximation beside it: a registered hit whose victim, at the
-- server's present when the hit was settled, stood behind cover from
-- the shooter's eye, which a live study stored as objective_sbc before.
-- Shots stored before have false in both; their objective_sbc is the
-- victim's client's in a simulated study, the server's present-time
-- test in a live one.

ALTER TABLE shots ADD COLUMN sbc_known BOOLEAN NOT NULL DEFAULT FALSE;

ALTER TABLE shots ADD COLUMN server_sbc BOOLEAN NOT NULL DEFAULT FALSE;
