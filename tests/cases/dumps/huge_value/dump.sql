-- a value of 100 MB: past the import's limit on one value, refused before it is made
INSERT INTO configs(text) VALUES(randomblob(100000000));
