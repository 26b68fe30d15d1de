-- a refused statement that spans lines: quoted on one line of error
INSERT INTO configs(text) VALUES(1);
/* x
y */ DELETE
FROM configs;
