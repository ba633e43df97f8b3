; A small colorballs problem (2 x 2 grid, one ball of one of two colours) for gold-path tests.
(define (problem colorballs-2)
  (:domain colorballs)
  (:objects o1 - obj p1-1 p1-2 p2-1 p2-2 - pos red blue - col t1 t2 - gar)
  (:init
    (and
      (at p1-1)
      (garbage-at t1 p1-1) (garbage-at t2 p2-2)
      (garbage-color t1 red) (garbage-color t2 blue)
      (adj p1-1 p1-2) (adj p1-2 p1-1) (adj p1-1 p2-1) (adj p2-1 p1-1)
      (adj p1-2 p2-2) (adj p2-2 p1-2) (adj p2-1 p2-2) (adj p2-2 p2-1)
      (oneof (obj-at o1 p1-2) (obj-at o1 p2-1) (obj-at o1 p2-2))
      (oneof (color o1 red) (color o1 blue))))
  (:goal (trashed o1)))
