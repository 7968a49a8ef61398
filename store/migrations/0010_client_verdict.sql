-- A shot keeps its shooter's client's own verdict on it, as that client
-- drew the other players at the shot's view time: 'hit', 'miss', or ''
-- when unknown (a projectile weapon's shot, a client that sent none).
-- Shots stored before have ''.

ALTER TABLE shots ADD COLUMN client_verdict TEXT NOT NULL DEFAULT '';
