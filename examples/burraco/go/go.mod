module kozyrbot

go 1.19
