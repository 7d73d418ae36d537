<?php // Candidate 5: the random avatar as PHP behind php-fpm (the design the Java service replaced).
// The images: the files of AVATAR_IMAGES whose whole name matches AVATAR_NAME_RULE (the legacy names of images/manifest.tsv).
$images = preg_grep('~^(?:' . getenv('AVATAR_NAME_RULE') . ')$~', scandir(getenv('AVATAR_IMAGES')));
header('Cache-Control: no-store');
header('Location: /' . $images[array_rand($images)], true, 302);
